/* mahjong-lens, page-table.js: The Rode Draak table page: four hands settled, onto a tournament slip. */
import { $, $$, postJSON, request, sentence, setStatus } from "./dom.js";
import { WINDS, WIND_NAMES } from "./tiles.js";
import { HandState } from "./hand.js";
import { HandEditor } from "./editor.js";
import { renderPayments, renderResult } from "./results.js";
import { checkPhoto, scanForm } from "./photos.js";
import { answerHandlers } from "./answers.js";

// ------------------------------------------------------------------ page: Rode Draak table

function tablePage() {
  const contextForm = $("#table-context");
  const status = $("#table-status");
  const editors = {};
  for (const wind of WINDS) {
    const section = $(`.seat[data-seat="${wind}"]`);
    editors[wind] = new HandEditor($(".hand", section), { emptyText: "No tiles yet." });
  }
  for (const button of $$("[data-seat-add]")) {
    const editor = editors[button.dataset.seatAdd];
    button.addEventListener("click", () => (button.dataset.addMeld ? editor.addMeld(button.dataset.addMeld) : editor.add("concealed")));
  }

  function tableContext() {
    const data = new FormData(contextForm);
    const win = data.get("win") || "";  // none chosen: asked, for the winner, where it matters
    return { rules: "rode-draak", prevalent_wind: data.get("prevalent_wind") || "E", self_drawn: win === "self_drawn",
      discarder: win === "discard" ? data.get("discarder") : null, options: {}, situation: {} };
  }

  async function scanSeat(file, seat) {
    const problem = checkPhoto(file);
    if (problem) { setStatus(status, sentence(problem), "error"); return null; }
    setStatus(status, `Reading ${seat ? WIND_NAMES[seat] + "'s" : "the table's"} tiles…`, "busy");
    try {
      // "did not win" for the scan: a seat's photo may hold 13 tiles or a winning 14
      return await request("/api/scan", { method: "POST", body: scanForm(file, { ...tableContext(), no_win: true }, { seat }) });
    } catch (error) {
      setStatus(status, sentence(error.message), "error");
      return null;
    }
  }

  for (const input of $$("[data-seat-photo]")) {
    input.addEventListener("change", async () => {
      const seat = input.dataset.seatPhoto;
      const file = input.files[0];
      input.value = "";
      const scanned = await scanSeat(file, seat);
      if (!scanned) return;
      const state = HandState.fromScan(scanned);
      editors[seat].set(state);
      // a winning tile the scan took (every candidate scored alike) is the winner's, marked
      const taken = (scanned.hand || {}).win_tile;
      if (taken && !state.win) answersFor(seat).onWinTile(taken);
      if (scanned.question) {  // a winner's hand: what it leaves open is asked when the table settles
        setStatus(status, `${WIND_NAMES[seat]}'s hand read: a winning hand. What the photo leaves open about it is asked when the table is settled.`, "ok");
        return;
      }
      setStatus(status, scanned.error ? `${WIND_NAMES[seat]}: ${sentence(scanned.error)}` : `${WIND_NAMES[seat]}'s hand read.`, scanned.error ? "warn" : "ok");
    });
  }

  $("#table-photo").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    const scanned = await scanSeat(file, null);
    if (!scanned) return;
    const hands = scanned.hands || (scanned.hand || scanned.reading ? [scanned] : []);
    if (!hands.length) { setStatus(status, sentence(scanned.error || "no hand was found on the photo"), "error"); return; }
    hands.slice(0, 4).forEach((entry, index) => {
      const seat = entry.seat || (entry.hand && entry.hand.seat_wind && hands.length === 1 ? entry.hand.seat_wind : WINDS[index]);
      editors[seat].set(HandState.fromScan(scanned.hands ? scanned : { ...scanned, hands: [scanned] }, index));
    });
    setStatus(status, `${hands.length} hand${hands.length > 1 ? "s" : ""} read from the photo; check the seats.`, "ok");
  });

  // the one question a table asks before it settles (rules.win_tile.ask_table): about one
  // seat's hand, answered with one tap there, then settled again
  // the answers of answers.js, on a seat's editor and the table's form, settled again after
  const answersFor = (seat) => answerHandlers(() => editors[seat], contextForm, () => settle());

  function ask(question) {
    const seat = question.seat;
    const section = $(`.seat[data-seat="${seat}"]`);
    $(".seat-result", section).textContent = "";
    const answers = answersFor(seat);
    renderResult($(".seat-detail", section), question, seat, {
      onWinTile: (code, how) => { if (answers.onWinTile(code, how)) settle(); },
      onWinWay: answers.onWinWay,
    });
    section.scrollIntoView({ block: "nearest" });
    setStatus(status, `One question about ${WIND_NAMES[seat]}'s hand, answered there with one tap.`, "warn");
  }

  async function settle() {
    const context = tableContext();
    const hands = {};
    for (const wind of WINDS) {
      const state = editors[wind].state;
      if (state.isEmpty()) { setStatus(status, `Enter ${WIND_NAMES[wind]}'s hand first.`, "error"); return; }
      hands[wind] = state.toHand({ ...context, seat_wind: wind });
    }
    setStatus(status, "Settling…", "busy");
    try {
      const outcome = await postJSON("/api/table", { prevalent_wind: context.prevalent_wind, hands, options: {} });
      if (outcome.question) { ask(outcome); return; }
      for (const wind of WINDS) {
        const section = $(`.seat[data-seat="${wind}"]`);
        const result = (outcome.seats || {})[wind];
        $(".seat-result", section).textContent = result ? (result.valid ? `${result.points} points` : "not valid") : "";
        renderResult($(".seat-detail", section), result ? { ...result, payments: {} } : null);
      }
      $("#table-outcome").hidden = false;
      $("#table-payments").replaceChildren(renderPayments(outcome.payments || {}, null, outcome.transfers || []));
      fillTableSlip(outcome);
      setStatus(status, outcome.note ? `Settled. ${sentence(outcome.note)}` : "Settled.", "ok");
    } catch (error) {
      setStatus(status, sentence(error.message), "error");
    }
  }
  $("#table-settle").addEventListener("click", settle);
}

// The settled table onto a tournament score slip: each wind's points, the Mahjong maker
// and the dead hands go along in the slip form's query; the slip page shows the players.
function fillTableSlip(outcome) {
  const form = $("#table-to-slip");
  if (!form) return;
  for (const old of $$("input[name=dead]", form)) old.remove();
  for (const wind of WINDS) {
    const result = (outcome.seats || {})[wind] || {};
    form.elements[wind].value = result.valid ? String(result.points) : "";
    if (result.dead) {
      const dead = document.createElement("input");
      Object.assign(dead, { type: "hidden", name: "dead", value: wind });
      form.append(dead);
    }
  }
  form.elements.mahjong.value = outcome.winner || "";
}

export { tablePage };
