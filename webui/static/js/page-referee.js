/* mahjong-lens, page-referee.js: The referee records page: each recorded hand drawn as tiles. */
import { $$ } from "./dom.js";
import { tileElement } from "./tiles.js";
import { HandState } from "./hand.js";
import { sortSlots } from "./editor.js";

// ------------------------------------------------------------------ page: referee records

function refereePage() {
  for (const cell of $$("[data-hand]")) {
    try {
      const hand = JSON.parse(cell.dataset.hand);  // laid out in lists by the server (null: unreadable)
      if (!hand) continue;
      const state = HandState.fromLaidOut(hand);
      for (const s of [...sortSlots(state.concealed), ...state.melds.flatMap((m) => m.tiles), ...(state.win ? [state.win] : [])]) {
        cell.append(tileElement(s.code, { classes: s === state.win ? ["win"] : [] }));
      }
      cell.nextElementSibling.hidden = true;  // the notation stays for tiles the page cannot draw
    } catch (error) { /* an unreadable hand keeps its notation */ }
  }
}

export { refereePage };
