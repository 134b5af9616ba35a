/* mahjong-lens, hand.js: A hand kept client-side: slots for its tiles, melds, winning tile and indicators. */
import { plain } from "./tiles.js";

// ------------------------------------------------------------------ the hand, client-side

/* A slot is one tile of the hand: its code, the scan box it came from (if any), and
 * whether the recogniser doubted it or the player changed it. */
function slot(code, extra = {}) { return { code, scan: null, doubtful: false, edited: false, ...extra }; }

class HandState {
  constructor() {
    this.concealed = [];
    this.melds = [];
    this.win = null;
    this.dora = [];
    this.ura = [];     // ura-dora indicators: turned over after a riichi win
    this.unused = [];  // scan boxes that are in no slot (spurious, or not read into the hand)
    this.scanTiles = [];
  }

  /** A hand as the server lays it out in lists (rules.hand.Hand.laid_out): the page
   * never reads notation itself. */
  static fromLaidOut(hand) {
    const state = new HandState();
    state.concealed = (hand.concealed || []).map((c) => slot(c));
    state.win = hand.win_tile ? slot(hand.win_tile) : null;
    state.melds = (hand.melds || []).map((m, index) => ({
      type: m.type, open: m.open !== false, tiles: (m.tiles || []).map((c) => slot(c)), index,
    }));
    state.dora = (hand.dora_indicators || []).map((c) => slot(c));
    state.ura = (hand.ura_dora_indicators || []).map((c) => slot(c));
    return state;
  }

  /** What the layout read of a hand that could not be scored (reading order, melds kept). */
  static fromReading(reading) {
    const state = new HandState();
    const faces = (tiles) => tiles.filter((t) => t !== "back");
    state.concealed = faces(reading.concealed || []).map((c) => slot(c));
    if (reading.win_tile) {
      const at = state.concealed.map((s) => s.code).lastIndexOf(reading.win_tile);
      if (at >= 0) state.win = state.concealed.splice(at, 1)[0];
    }
    (reading.melds || []).forEach((meld, index) => {
      // the meld's tiles as the hand holds them (a kong's face-down tiles named by the server)
      const codes = meld.hand_tiles || faces(meld.tiles || []);
      if (meld.type === "?" || !codes.length || (codes.length !== 3 && codes.length !== 4)) {
        state.concealed.push(...faces(codes).map((c) => slot(c)));  // not a set: loose tiles to correct
        return;
      }
      state.melds.push({ type: meld.type, open: meld.open !== false, tiles: codes.map((c) => slot(c)), index });
    });
    return state;
  }

  /** The state of one hand of a scan: what it read (with the winning tile the scan took). */
  static fromScan(scan, entryNumber = null) {
    const entries = scan.hands || null;
    let number = entryNumber;
    if (number === null) {
      number = 0;
      if (entries) {
        const winner = entries.findIndex((e) => e.hand && e.hand.win_tile);
        const scored = entries.findIndex((e) => e.hand);
        number = winner >= 0 ? winner : Math.max(scored, 0);
      }
    }
    const entry = entries ? entries[number] || {} : scan;
    let state;
    if (entry.reading) {
      state = HandState.fromReading(entry.reading);
      state.dora = (scan.dora_indicators || []).map((c) => slot(c));
      state.ura = ((entry.hand || {}).ura_dora_indicators || []).map((c) => slot(c));
    } else {
      state = new HandState();
      state.concealed = (scan.tiles || []).filter((t) => !t.face_down).map((t) => slot(t.tile));
    }
    state.link(scan.tiles || [], scan.doubtful || [], number);
    return state;
  }

  slots() {
    return [...this.concealed, ...this.melds.flatMap((m) => m.tiles), ...(this.win ? [this.win] : []), ...this.dora];
  }

  /** Tie each scan box to its slot, so a click on the photo edits the hand: by the role
   * the layout gave the tile (concealed, winning tile, meld n, dora) and its face. */
  link(scanTiles, doubtful, handNumber = 0) {
    this.scanTiles = scanTiles;
    const doubted = new Set(doubtful);
    this.unused = [];
    scanTiles.forEach((tile, index) => {
      let pool;
      if (!tile.role) pool = tile.face_down ? [] : this.slots();  // a scan without roles: by face
      else if (tile.role === "dora") pool = this.dora;
      else if (tile.hand !== handNumber) pool = [];
      else if (tile.role === "win") pool = this.win ? [this.win] : this.concealed;
      else if (tile.role === "concealed") pool = this.concealed;
      else if (tile.role === "meld") {
        const meld = this.melds.find((m) => m.index === tile.meld) || this.melds[tile.meld];
        pool = meld ? meld.tiles : this.concealed;
      } else pool = [];
      const free = pool.filter((s) => s.scan === null);
      const found = free.find((s) => s.code === tile.tile) ||
        (tile.role === "meld" && tile.face_down ? free[0] : null);
      if (found) {
        found.scan = index;
        found.doubtful = doubted.has(index) || Boolean(tile.doubtful);
        found.alternatives = tile.alternatives || [];
        found.firstReading = tile.first_reading || null;  // re-read by the layout: to make its meld a set,
        found.rereadFor = tile.role === "meld" ? "set" : "win";  // or (a concealed tile) the hand a win
      } else {
        this.unused.push(index);
      }
    });
  }

  slotForScan(index) { return this.slots().find((s) => s.scan === index) || null; }

  isEmpty() { return this.slots().length === 0; }

  toHand(context = {}) {
    const concealed = this.concealed.map((s) => s.code);
    if (this.win) concealed.push(this.win.code);
    const won = Boolean(this.win) && !context.no_win;
    // tiles go as lists (the server reads them as notation would be); a meld's type is the
    // server's to infer when a change of its tiles left it open to question (type null)
    const hand = {
      concealed,
      melds: this.melds.map((m) => ({ ...(m.type ? { type: m.type } : {}), tiles: m.tiles.map((s) => s.code), open: m.open })),
      win_tile: won ? this.win.code : null,
      seat_wind: context.seat_wind || "E",
      prevalent_wind: context.prevalent_wind || "E",
      // how it was won goes along even before the winning tile is marked: the server then
      // asks which tile completed the hand instead of calling it dead
      self_drawn: !context.no_win && Boolean(context.self_drawn),
      discarder: !context.no_win && !context.self_drawn ? (context.discarder || null) : null,
      dora_indicators: this.dora.map((s) => s.code),
      ura_dora_indicators: this.ura.map((s) => s.code),
      situation: context.situation || {},
    };
    return hand;
  }
}

export { HandState, slot };
