/* mahjong-lens, editor.js: The hand editor: draws a HandState as tiles; a click asks what a tile should be. */
import { plain, sortKey, tileElement, tileName } from "./tiles.js";
import { HandState, slot } from "./hand.js";
import { pickTile } from "./picker.js";

// ------------------------------------------------------------------ the hand editor

/** Draws a HandState as tile pictures; a click on a tile asks what it should be. */
class HandEditor {
  constructor(container, { onChange = () => {}, doraStrip = null, uraStrip = null, emptyText = null } = {}) {
    this.container = container;
    this.doraStrip = doraStrip;
    this.uraStrip = uraStrip;
    this.onChange = onChange;
    this.emptyText = emptyText || "No tiles yet: take a photo, or add tiles with “+ tile”.";
    this.state = new HandState();
    this.render();
  }

  set(state) { this.state = state; this.render(); }

  changed() { this.render(); this.onChange(this.state); }

  render() {
    const state = this.state;
    const box = this.container;
    box.replaceChildren();
    if (state.isEmpty() || (!state.concealed.length && !state.melds.length && !state.win)) {
      const empty = document.createElement("p");
      empty.className = "muted empty";
      empty.textContent = this.emptyText;
      box.append(empty);
    }
    if (state.concealed.length) {
      box.append(this.group("in the hand", sortSlots(state.concealed).map((s) => this.tile(s, "concealed")), "concealed"));
    }
    state.melds.forEach((meld, index) => {
      const label = `${meld.type || "set"}${meld.open ? "" : " · concealed"}`;
      const group = this.group(label, meld.tiles.map((s) => this.tile(s, "meld", meld)), `meld ${meld.open ? "open" : "closed"}`);
      if (meld.type === "kong") {
        const toggle = group.querySelector(".group-label");
        toggle.classList.add("toggle");
        toggle.title = "open or concealed: click to switch";
        toggle.addEventListener("click", () => { meld.open = !meld.open; this.changed(); });
      }
      group.dataset.meld = index;
      box.append(group);
    });
    if (state.win) box.append(this.group("winning tile", [this.tile(state.win, "win")], "win"));
    if (this.doraStrip) {
      this.doraStrip.replaceChildren(...state.dora.map((s) => this.tile(s, "dora")));
    }
    if (this.uraStrip) this.uraStrip.replaceChildren(...state.ura.map((s) => this.tile(s, "ura")));
  }

  group(label, tiles, kind) {
    const group = document.createElement("div");
    group.className = `group ${kind}`;
    const caption = document.createElement("span");
    caption.className = "group-label";
    caption.textContent = label;
    const row = document.createElement("div");
    row.className = "tiles";
    row.append(...tiles);
    group.append(row, caption);
    return group;
  }

  tile(s, where, meld = null) {
    const classes = [];
    if (s.doubtful) classes.push("doubtful");
    if (s.edited) classes.push("edited");
    const element = tileElement(s.code, { onClick: () => this.edit(s, where, meld), classes });
    if (s.scan !== null) element.dataset.scan = s.scan;
    return element;
  }

  /** Change, remove or promote one tile (a meld changes as a whole where that is what it means). */
  async edit(s, where, meld = null) {
    const whole = meld && meld.type && meld.type !== "chow";
    const title = where === "dora" ? "Dora indicator" : where === "ura" ? "Ura-dora indicator" : whole ? `Change this ${meld.type}` :
      s.doubtful ? `Is this the ${tileName(s.code)}?` : `Change the ${tileName(s.code)}`;
    const answer = await pickTile({
      title, current: s.code, remove: true, win: where === "concealed",
      suggestions: (s.alternatives || []).map((a) => (Array.isArray(a) ? a[0] : a.tile || a)).filter((c) => typeof c === "string" && c !== s.code),
    });
    if (!answer) return;
    const state = this.state;
    if (answer.action === "remove") {
      if (where === "concealed") state.concealed.splice(state.concealed.indexOf(s), 1);
      else if (where === "win") state.win = null;
      else if (where === "dora") state.dora.splice(state.dora.indexOf(s), 1);
      else if (where === "ura") state.ura.splice(state.ura.indexOf(s), 1);
      else if (meld) state.melds.splice(state.melds.indexOf(meld), 1);
      if (s.scan !== null) state.unused.push(s.scan);
    } else if (answer.action === "win") {
      state.concealed.splice(state.concealed.indexOf(s), 1);
      if (state.win) state.concealed.push(state.win);
      state.win = s;
    } else if (whole) {
      const kind = plain(answer.code);
      meld.tiles.forEach((t, i) => {
        t.code = i === 0 ? answer.code : kind;
        t.edited = true;
        t.doubtful = false;
      });
    } else {
      s.code = answer.code;
      s.doubtful = false;
      s.edited = true;
      if (meld) meld.type = null;  // a chow changed: the server says what its tiles now make
    }
    this.changed();
  }

  async add(where) {
    const titles = { dora: "Add a dora indicator", ura: "Add an ura-dora indicator" };
    const answer = await pickTile({ title: titles[where] || "Add a tile to the hand" });
    if (!answer || answer.action !== "set") return;
    const strips = { dora: this.state.dora, ura: this.state.ura };
    (strips[where] || this.state.concealed).push(slot(answer.code, { edited: true }));
    this.changed();
  }

  async addMeld(kind) {
    const chow = kind === "chow";
    const answer = await pickTile({ title: chow ? "The lowest tile of the chow" : `The tile of the ${kind.replace("-", " ")}` });
    if (!answer || answer.action !== "set") return;
    const code = answer.code;
    let codes;
    if (chow) {
      const n = Number(plain(code)[0]);
      if (code[1] === "z" || n > 7) { alert("A chow runs three numbers of one suit, e.g. 3-4-5 of dots: choose its lowest tile, 1 to 7."); return; }
      codes = [code, `${n + 1}${code[1]}`, `${n + 2}${code[1]}`];
    } else {
      const size = kind === "pung" ? 3 : 4;
      codes = Array.from({ length: size }, (_, i) => (i === 0 ? code : plain(code)));
    }
    this.state.melds.push({
      type: chow ? "chow" : kind === "pung" ? "pung" : "kong", open: kind !== "concealed-kong",
      tiles: codes.map((c) => slot(c, { edited: true })),
    });
    this.changed();
  }

  clear() { this.state = new HandState(); this.changed(); }
}

function sortSlots(slots) { return [...slots].sort((a, b) => sortKey(a.code) - sortKey(b.code)); }

export { HandEditor, sortSlots };
