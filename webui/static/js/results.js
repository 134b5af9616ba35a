/* mahjong-lens, results.js: A result drawn: points, breakdown, payments, or the question which tile won. */
import { sentence } from "./dom.js";
import { WINDS, WIND_NAMES, tileElement } from "./tiles.js";

// ------------------------------------------------------------------ showing a result

/** Each seat's gain or loss, and who pays whom: `moves` as the server computed them
 * ({from, to, amount}); the page adds up nothing itself. */
function renderPayments(payments, seat = null, moves = []) {
  const wrap = document.createElement("div");
  wrap.className = "payments";
  const chips = document.createElement("div");
  chips.className = "seat-chips";
  for (const wind of WINDS) {
    if (!(wind in payments)) continue;
    const value = payments[wind];
    const chip = document.createElement("span");
    chip.className = `seat-chip ${value > 0 ? "gain" : value < 0 ? "loss" : ""}`;
    chip.innerHTML = `<b></b><span></span>`;
    chip.firstChild.textContent = WIND_NAMES[wind] + (wind === seat ? " (this hand)" : "");
    chip.lastChild.textContent = value > 0 ? `+${value}` : String(value);
    chips.append(chip);
  }
  wrap.append(chips);
  if (moves.length) {
    const list = document.createElement("ul");
    list.className = "transfers";
    for (const { from, to, amount } of moves) {
      const item = document.createElement("li");
      item.textContent = `${WIND_NAMES[from]} pays ${WIND_NAMES[to]} ${amount}`;
      list.append(item);
    }
    wrap.append(list);
  }
  return wrap;
}

/** A question the server asks (which tile won, is it a kong): each answer a tile and its score. */
function questionBox(title, explanation, answers) {
  const box = document.createElement("div");
  box.className = "question";
  box.append(Object.assign(document.createElement("strong"), { textContent: title }),
    Object.assign(document.createElement("p"), { className: "muted", textContent: explanation }));
  const choices = document.createElement("div");
  choices.className = "win-choices";
  for (const { tile, data, text, answer } of answers) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "win-choice";
    Object.assign(button.dataset, data);
    if (tile) button.append(tileElement(tile));
    button.append(Object.assign(document.createElement("span"), { className: "win-points", textContent: text }));
    if (answer) button.addEventListener("click", answer);
    else button.disabled = true;
    choices.append(button);
  }
  box.append(choices);
  return box;
}

function renderResult(target, result, seat = null, { onWinTile = null, onKong = null, onNotWon = null, onRedFive = null, onWinWay = null } = {}) {
  target.replaceChildren();
  if (!result) return;
  const head = document.createElement("div");
  head.className = "points-line";
  if (result.question === "win_way") {
    // the score depends on how the hand was won, and nothing said it: one tap says which
    target.append(questionBox("Self-drawn or a discard?", sentence(result.error || ""),
      (result.way_candidates || []).map((c) => ({
        tile: null, data: { way: c.way },
        text: `${c.way === "self_drawn" ? "self-drawn" : `a discard from ${WIND_NAMES[c.discarder] || "another player"}`}: ${c.points === null ? "no win" : `${c.then ? "up to " : ""}${c.points} points`}`,
        answer: onWinWay && (() => onWinWay(c.way, c.discarder || null)),
      }))));
    return;
  }
  if (result.question === "not_won") {
    // no tile makes these a win: perhaps the hand did not win (Rode Draak scores it then)
    const [lost] = result.way_candidates || [{}];
    target.append(questionBox("Did this hand win?", sentence(result.error || ""),
      [{ tile: null, data: { way: "none" }, text: `It did not win: ${lost.points} points`,
        answer: onNotWon && (() => onNotWon()) }]));
    return;
  }
  if (result.question === "kong_in_row") {
    // one tile too many, four alike in the row: a kong not set apart; one tap says which
    target.append(questionBox("Four alike lie in the row: a kong?",
      "The hand has one tile too many for a win unless they are a kong. Tap what it was:",
      (result.kong_candidates || []).map((c) => ({
        tile: c.tile, data: { kong: `${c.tile}:${c.open ? "open" : "concealed"}` },
        text: `${c.open ? "open" : "concealed"} kong: ${c.then ? "up to " : ""}${c.points} points`,
        answer: onKong && (() => onKong(c.tile, c.open)),
      }))));
    return;
  }
  if (result.question === "red_five") {
    // four plain fives of a suit where the rules play one red five a suit: one tap says which
    target.append(questionBox("Is one of these fives red?", sentence(result.error || ""),
      (result.red_candidates || []).map((c) => ({
        tile: c.tile, data: { red: c.tile || "none" },
        text: `${c.tile ? "one is red" : "this set has no red fives"}: ${c.points === null ? "no win" : `${c.then ? "up to " : ""}${c.points} points`}`,
        answer: onRedFive && (() => onRedFive(c.tile)),
      }))));
    return;
  }
  if (result.question === "win_tile" || result.question === "missing_win_tile") {
    // not a dead hand: only the winning tile is unknown (or out of view); one tap answers
    const missing = result.question === "missing_win_tile";
    target.append(questionBox("Which tile completed the hand?", missing
      ? "It is not on the photo (hidden, or cut off). The hand waits on these; tap the one that made Mahjong:"
      : "The score depends on it. Tap the tile that made Mahjong:",
    (result.win_candidates || []).map((c) => ({
      tile: c.tile, data: { winTile: c.tile }, text: `${c.points} points`,
      answer: onWinTile && (() => onWinTile(c.tile, { add: missing })),
    }))));
    return;
  }
  if (!result.valid) {
    head.classList.add("invalid");
    head.innerHTML = `<span class="badge bad">not valid</span> <span class="why"></span>`;
    head.lastChild.textContent = sentence(result.error || "this hand cannot be scored");
    target.append(head);
    return;
  }
  head.innerHTML = `<span class="points" data-points></span><span class="unit">points</span>`;
  head.querySelector("[data-points]").textContent = result.points;
  const tags = document.createElement("span");
  tags.className = "tags";
  tags.append(Object.assign(document.createElement("span"), { className: result.winning ? "badge" : "badge soft", textContent: result.winning ? "Mahjong" : "not a win" }));
  // the facts of the count in the rule set's words (rules.result.Result.facts), never field names
  for (const fact of result.facts || []) {
    tags.append(Object.assign(document.createElement("span"), { className: "badge soft", textContent: fact }));
  }
  head.append(tags);
  target.append(head);
  if (result.breakdown && result.breakdown.length) {
    const table = document.createElement("table");
    table.className = "breakdown";
    for (const line of result.breakdown) {
      const row = table.insertRow();
      row.insertCell().textContent = line.name;
      const value = row.insertCell();
      value.textContent = line.value;
      // a figure keeps to one line on the right; a sentence (a reason) wraps like text
      value.className = String(line.value).length <= 24 ? "num" : "text";
    }
    target.append(table);
  }
  if (result.payments && Object.keys(result.payments).length) target.append(renderPayments(result.payments, seat, result.transfers || []));
  if (result.note) target.append(Object.assign(document.createElement("p"), { className: "muted small", textContent: sentence(result.note) }));
}

export { renderPayments, renderResult };
