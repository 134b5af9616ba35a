/* mahjong-lens, tiles.js: Tiles as the page draws and names them; the names of tiles and winds come from the server. */

// ------------------------------------------------------------------ tiles

// the names of tiles and winds are the server's (rules.tiles.vocabulary), served in the page
const VOCABULARY = JSON.parse(document.querySelector("#vocabulary").textContent || "{}");
const WINDS = VOCABULARY.winds || ["E", "S", "W", "N"];
const WIND_NAMES = VOCABULARY.wind_names || {};
// how a tile is drawn: the big letter and the small word of an honour, the suit's short word
const SUIT_SHORT = { m: "char", p: "dots", s: "bam" };
const HONOURS = {
  "1z": ["E", "wind"], "2z": ["S", "wind"], "3z": ["W", "wind"], "4z": ["N", "wind"],
  "5z": ["", "dragon"], "6z": ["G", "dragon"], "7z": ["R", "dragon"],
};

// the order tiles are shown in, as the server sorts them (rules.tiles.sort_key)
const ORDER = new Map((VOCABULARY.order || []).map((code, index) => [code, index]));
function sortKey(tile) { return ORDER.has(tile) ? ORDER.get(tile) : ORDER.size; }

function plain(tile) { return tile[0] === "0" ? "5" + tile[1] : tile; }

function tileName(tile) { return (VOCABULARY.names || {})[tile] || tile; }

/** A short name for a label on the photo, where "5z" would mean nothing to a player. */
const SHORT_HONOURS = { "1z": "E", "2z": "S", "3z": "W", "4z": "N", "5z": "Wh", "6z": "Gr", "7z": "Rd" };
const SUIT_LETTER = { m: "C", p: "D", s: "B" };
function shortName(tile) {
  if (tile === "back") return "back";
  if (SHORT_HONOURS[tile]) return SHORT_HONOURS[tile];
  if (tile[1] === "f") return (Number(tile[0]) <= 4 ? "F" : "S") + (((Number(tile[0]) - 1) % 4) + 1);
  if (SUIT_LETTER[tile[1]]) return (tile[0] === "0" ? "red 5" : tile[0]) + SUIT_LETTER[tile[1]];
  return tile;
}

/** A tile picture: pure CSS, the face in large type and the suit in small. */
function tileElement(code, { onClick = null, classes = [], label = null } = {}) {
  const element = document.createElement(onClick ? "button" : "span");
  if (onClick) { element.type = "button"; element.addEventListener("click", onClick); }
  element.className = "tile";
  element.dataset.tile = code;
  element.title = label || tileName(code);
  element.setAttribute("aria-label", element.title);
  const face = document.createElement("span");
  face.className = "face";
  const sub = document.createElement("span");
  sub.className = "sub";
  if (code === "back") {
    element.classList.add("back");
  } else if (HONOURS[code]) {
    const [letter, kind] = HONOURS[code];
    element.classList.add(kind === "wind" ? "wind" : "dragon", `z${code[0]}`);
    face.textContent = letter;
    sub.textContent = kind;
  } else if (code[1] === "f") {
    element.classList.add("bonus");
    face.textContent = code[0];
    sub.textContent = Number(code[0]) <= 4 ? "flower" : "season";
  } else {
    element.classList.add(`suit-${code[1]}`);
    face.textContent = code[0] === "0" ? "5" : code[0];
    sub.textContent = SUIT_SHORT[code[1]];
    if (code[0] === "0") element.classList.add("red-five");
  }
  element.append(face, sub);
  for (const name of classes) element.classList.add(name);
  return element;
}

export { WINDS, WIND_NAMES, plain, shortName, sortKey, tileElement, tileName };
