/* mahjong-lens, answers.js: One tap answers a question the score asks: the hand in the editor, or the
 * situation form, is changed as the answer says, then scored again. The photo, live and table pages share these. */
import { slot } from "./hand.js";
import { plain } from "./tiles.js";
import { setWinWay } from "./context.js";

/** The handlers renderResult takes: `editorOf()` gives the hand's editor, `form` the situation
 * form (or null), `rescore()` scores again after a change of the form (the editor's own change
 * scores by itself). */
function answerHandlers(editorOf, form, rescore) {
  /** "Which tile completed the hand?": that tile becomes the winning one (`add`: it was not on
   * the photo, and joins the hand). Returns whether the hand changed. */
  function onWinTile(code, { add = false } = {}) {
    const editor = editorOf();
    const state = editor.state;
    if (add) {
      if (state.win) state.concealed.push(state.win);
      state.win = slot(code, { edited: true });
    } else {
      const at = state.concealed.map((s) => s.code).lastIndexOf(code);
      if (at < 0) return false;
      if (state.win) state.concealed.push(state.win);
      state.win = state.concealed.splice(at, 1)[0];
    }
    editor.changed();
    return true;
  }

  /** "Four alike in the row: a kong?": the four become that kong. */
  function onKong(code, open) {
    const editor = editorOf();
    const state = editor.state;
    const four = state.concealed.filter((s) => plain(s.code) === code).slice(0, 4);
    if (four.length !== 4) return;
    state.concealed = state.concealed.filter((s) => !four.includes(s));
    state.melds.push({ type: "kong", open, tiles: four, index: state.melds.length });
    editor.changed();
  }

  /** "Did this hand win?": it did not (the form says so, and it is scored so). */
  function onNotWon() {
    const none = form && form.querySelector("input[name=win][value=none]");
    if (!none) return;
    none.checked = true;
    rescore();
  }

  /** "Is one of these fives red?": one plain five becomes the red one (`red`, e.g. "0p"; one in
   * the hand that is not the winning tile where there is one), or, with `red` null, the set has
   * no red fives (the rule set's setting is turned off). */
  function onRedFive(red) {
    if (!red) {
      const setting = form && form.querySelector(".settings-fields [data-setting=red_fives]");
      if (!setting) return;
      setting.checked = false;
      rescore();
      return;
    }
    const editor = editorOf();
    const state = editor.state;
    const five = "5" + red[1];
    const inHand = state.concealed.find((s) => s.code === five);
    const inMeld = state.melds.flatMap((m) => m.tiles).find((s) => s.code === five);
    const target = inHand || inMeld || (state.win && state.win.code === five ? state.win : null);
    if (!target) return;
    target.code = red;
    target.edited = true;
    editor.changed();
  }

  /** "Self-drawn or a discard?": the form says which. */
  function onWinWay(way, discarder) {
    if (!form) return;
    setWinWay(form, way, discarder);
    rescore();
  }

  return { onWinTile, onKong, onNotWon, onRedFive, onWinWay };
}

export { answerHandlers };
