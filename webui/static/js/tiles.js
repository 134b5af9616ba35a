/* mahjong-lens, tiles.js: Tiles as the page draws and names them; the names of tiles and winds come from the server. */

// ------------------------------------------------------------------ tiles

// the names of tiles and winds are the server's (rules.tiles.vocabulary), served in the page
const VOCABULARY = JSON.parse(document.querySelector("#vocabulary").textContent || "{}");
const WINDS = VOCABULARY.winds || ["E", "S", "W", "N"];
const WIND_NAMES = VOCABULARY.wind_names || {};
// how a tile is drawn: what is printed on it and the word under it (rules.tiles.tile_face)
const FACES = VOCABULARY.faces || {};

// the order tiles are shown in, as the server sorts them (rules.tiles.sort_key)
const ORDER = new Map((VOCABULARY.order || []).map((code, index) => [code, index]));
function sortKey(tile) { return ORDER.has(tile) ? ORDER.get(tile) : ORDER.size; }

function plain(tile) { return tile[0] === "0" ? "5" + tile[1] : tile; }

function tileName(tile) { return (VOCABULARY.names || {})[tile] || tile; }

/** The same name shortened, for a label on the photo (rules.tiles.tile_label): "3 bam", "Red". */
function shortName(tile) { return (VOCABULARY.labels || {})[tile] || tile; }

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
  const [printed, word] = FACES[code] || [code, ""];
  if (code === "back") {
    element.classList.add("back");
  } else if (code[1] === "z") {  // the colours: winds, and each dragon its own
    element.classList.add(Number(code[0]) <= 4 ? "wind" : "dragon", `z${code[0]}`);
  } else if (code[1] === "f") {
    element.classList.add("bonus");
  } else {
    element.classList.add(`suit-${code[1]}`);
    if (code[0] === "0") element.classList.add("red-five");
  }
  if (code !== "back") {
    face.textContent = printed;
    sub.textContent = word;
  }
  element.append(face, sub);
  for (const name of classes) element.classList.add(name);
  return element;
}

export { WINDS, WIND_NAMES, plain, shortName, sortKey, tileElement, tileName };
