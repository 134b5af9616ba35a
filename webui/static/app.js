/* mahjong-lens table assistant: plain JavaScript, no build step, nothing fetched from outside.
 *
 * The page keeps the hand client-side (what the scan read, plus the player's corrections)
 * and asks the server for the score after every change: the rules live on the server only.
 */
"use strict";

(() => {
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const RULE_SETS = JSON.parse($("#rule-sets").textContent || "[]");
  const LIMITS = JSON.parse($("#limits").textContent || "{}");
  const WINDS = ["E", "S", "W", "N"];
  const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };

  // ------------------------------------------------------------------ tiles

  const SUIT_NAMES = { m: "characters", p: "dots", s: "bamboo" };
  const SUIT_SHORT = { m: "char", p: "dots", s: "bam" };
  const HONOURS = {
    "1z": ["E", "East", "wind"], "2z": ["S", "South", "wind"], "3z": ["W", "West", "wind"],
    "4z": ["N", "North", "wind"], "5z": ["", "White dragon", "dragon"],
    "6z": ["G", "Green dragon", "dragon"], "7z": ["R", "Red dragon", "dragon"],
  };
  const BONUS = ["Plum", "Orchid", "Chrysanthemum", "Bamboo flower", "Spring", "Summer", "Autumn", "Winter"];

  function parseTiles(text) {
    const compact = String(text || "").replace(/\s+/g, "");
    const tiles = [];
    const pattern = /(\d+)([mpszf])/gy;
    let match;
    let end = 0;
    while ((match = pattern.exec(compact)) !== null) {
      for (const digit of match[1]) tiles.push(digit + match[2]);
      end = pattern.lastIndex;
    }
    if (end !== compact.length) throw new Error(`cannot read "${compact.slice(end)}"`);
    return tiles;
  }

  const SUIT_ORDER = "mpszf";
  function sortKey(tile) {
    const n = tile[0] === "0" ? 5.5 : Number(tile[0]);
    return SUIT_ORDER.indexOf(tile[1]) * 10 + n;
  }
  function sortTiles(tiles) { return [...tiles].sort((a, b) => sortKey(a) - sortKey(b)); }

  function formatTiles(tiles) {
    let out = "";
    let last = "";
    for (const tile of sortTiles(tiles)) {
      // "10m" would read as ten: a red five after a 1 starts a new group
      if (last && last[1] === tile[1] && !(tile[0] === "0" && last[0] === "1")) {
        out = out.slice(0, -1) + tile;
      } else {
        out += tile;
      }
      last = tile;
    }
    return out;
  }

  function plain(tile) { return tile[0] === "0" ? "5" + tile[1] : tile; }

  function tileName(tile) {
    if (tile === "back") return "Face-down tile";
    if (HONOURS[tile]) return HONOURS[tile][1];
    if (tile[1] === "f") return BONUS[Number(tile[0]) - 1];
    if (tile[0] === "0") return `Red five of ${SUIT_NAMES[tile[1]]}`;
    return `${tile[0]} of ${SUIT_NAMES[tile[1]]}`;
  }

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
      const [letter, , kind] = HONOURS[code];
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

  // ------------------------------------------------------------------ requests

  async function request(url, options = {}) {
    let response;
    try {
      response = await fetch(url, options);
    } catch (error) {
      throw new Error("the table assistant cannot be reached (is the server still running?)");
    }
    let body = null;
    try { body = await response.json(); } catch (error) { body = null; }
    if (!response.ok) {
      const message = (body && body.error) || `the server answered ${response.status}`;
      const failure = new Error(message);
      failure.status = response.status;
      throw failure;
    }
    return body;
  }

  function postJSON(url, payload) {
    return request(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
    });
  }

  function sentence(text) {
    const t = String(text || "").trim();
    if (!t) return "";
    return t[0].toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? "" : ".");
  }

  function setStatus(element, text, kind = "") {
    if (!element) return;
    element.textContent = text;
    element.className = `status ${kind}`.trim();
  }

  // ------------------------------------------------------------------ the hand, client-side

  /* A slot is one tile of the hand: its code, the scan box it came from (if any), and
   * whether the recogniser doubted it or the player changed it. */
  function slot(code, extra = {}) { return { code, scan: null, doubtful: false, edited: false, ...extra }; }

  function meldType(codes, previous) {
    const same = new Set(codes.map(plain)).size === 1;
    if (codes.length === 4 && same) return "kong";
    if (codes.length === 3 && same) return "pung";
    if (codes.length === 3) return "chow";
    return previous || "chow";
  }

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

    static fromHand(hand) {
      const state = new HandState();
      const concealed = parseTiles(hand.concealed || "");
      if (hand.win_tile) {
        const at = concealed.lastIndexOf(hand.win_tile);
        if (at >= 0) { concealed.splice(at, 1); state.win = slot(hand.win_tile); }
      }
      state.concealed = concealed.map((c) => slot(c));
      state.melds = (hand.melds || []).map((m, index) => ({
        type: m.type, open: m.open !== false, tiles: parseTiles(m.tiles).map((c) => slot(c)), index,
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
        let codes = faces(meld.tiles || []);
        if (meld.type === "kong" && codes.length && codes.length < 4) {
          codes = codes.concat(Array(4 - codes.length).fill(plain(codes[0])));  // the face-down ones
        }
        const type = meldType(codes, null);
        if (meld.type === "?" || !codes.length || (codes.length !== 3 && codes.length !== 4)) {
          state.concealed.push(...codes.map((c) => slot(c)));  // not a set: loose tiles to correct
          return;
        }
        state.melds.push({ type, open: meld.open !== false, tiles: codes.map((c) => slot(c)), index });
      });
      return state;
    }

    /** The state of one hand of a scan: its hand when it built one, else what it read. */
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
      if (entry.hand) {
        state = HandState.fromHand(entry.hand);
      } else if (entry.reading) {
        state = HandState.fromReading(entry.reading);
        state.dora = (scan.dora_indicators || []).map((c) => slot(c));
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
      const hand = {
        concealed: formatTiles(concealed),
        melds: this.melds.map((m) => ({ type: m.type, tiles: formatTiles(m.tiles.map((s) => s.code)), open: m.open })),
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

  // ------------------------------------------------------------------ the tile picker

  const PICKER_ROWS = [
    ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "0m"],
    ["1p", "2p", "3p", "4p", "5p", "6p", "7p", "8p", "9p", "0p"],
    ["1s", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "0s"],
    ["1z", "2z", "3z", "4z", "5z", "6z", "7z"],
  ];

  /** Ask for a tile. Resolves {action: "set", code} | {action: "remove"} | {action: "win"} | null. */
  function pickTile({ title, current = null, remove = false, win = false, suggestions = [] }) {
    const dialog = $("#picker");
    const grid = $("#picker-grid");
    $("#picker-title").textContent = title;
    grid.replaceChildren();
    return new Promise((resolve) => {
      let answered = false;
      const finish = (value) => {
        if (answered) return;
        answered = true;
        if (dialog.open) dialog.close();
        resolve(value);
      };
      if (suggestions.length) {
        const row = document.createElement("div");
        row.className = "picker-row suggestions";
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = "Likely:";
        row.append(label);
        for (const code of suggestions) row.append(tileElement(code, { onClick: () => finish({ action: "set", code }) }));
        grid.append(row);
      }
      for (const codes of PICKER_ROWS) {
        const row = document.createElement("div");
        row.className = "picker-row";
        for (const code of codes) {
          row.append(tileElement(code, {
            onClick: () => finish({ action: "set", code }), classes: code === current ? ["current"] : [],
          }));
        }
        grid.append(row);
      }
      const removeButton = $("#picker-remove");
      const winButton = $("#picker-win");
      removeButton.hidden = !remove;
      winButton.hidden = !win;
      removeButton.onclick = () => finish({ action: "remove" });
      winButton.onclick = () => finish({ action: "win" });
      dialog.addEventListener("close", () => finish(null), { once: true });
      dialog.showModal();
    });
  }

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
        const label = `${meld.type}${meld.open ? "" : " · concealed"}`;
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
      const whole = meld && meld.type !== "chow";
      const title = where === "dora" ? "Dora indicator" : where === "ura" ? "Ura-dora indicator" : whole ? `Change this ${meld.type}` :
        s.doubtful ? `Is this the ${tileName(s.code).toLowerCase()}?` : `Change the ${tileName(s.code).toLowerCase()}`;
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
        if (meld) meld.type = meldType(meld.tiles.map((t) => t.code), meld.type);
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

  // ------------------------------------------------------------------ context and settings

  function readContext(form) {
    const data = new FormData(form);
    const situation = {};
    for (const flag of ["riichi", "double_riichi", "ippatsu", "last_tile", "kong_replacement", "robbing_kong", "first_turn"]) {
      const box = form.elements[flag];
      if (box && !box.closest("[hidden]") && !box.closest(".off")) situation[flag] = box.checked;
    }
    const win = data.get("win") || "discard";
    const options = {};
    for (const input of $$(".settings-fields [data-setting]", form)) {
      const value = input.type === "checkbox" ? input.checked : input.value;
      if (String(value) !== String(input.dataset.default)) options[input.dataset.setting] = input.type === "number" ? Number(value) : value;
    }
    return {
      rules: data.get("rules") || "rode-draak",
      seat_wind: data.get("seat_wind") || "E",
      prevalent_wind: data.get("prevalent_wind") || "E",
      self_drawn: win === "self_drawn",
      discarder: win === "discard" ? data.get("discarder") : null,
      no_win: win === "none",
      situation,
      options,
    };
  }

  /** Show only what the chosen rule set uses; build its settings fields. */
  function setupContextForm(form, onChange) {
    const rulesSelect = form.elements.rules;
    const fields = $(".settings-fields", form);
    const refresh = () => {
      const rules = rulesSelect.value;
      form.dataset.rules = rules;
      const riichi = rules === "riichi";
      for (const flag of ["riichi", "double_riichi", "ippatsu"]) {
        const chip = $(`.flag-${flag}`, form);
        if (chip) chip.classList.toggle("off", !riichi);
      }
      for (const strip of $$("[data-strip]", form)) strip.closest(".row").classList.toggle("off", !riichi);
      const entry = RULE_SETS.find((r) => r.name === rules) || { settings: [] };
      fields.replaceChildren();
      for (const setting of entry.settings) {
        const label = document.createElement("label");
        label.className = "setting";
        let input;
        if (setting.kind === "choice") {
          input = document.createElement("select");
          for (const choice of setting.choices) input.append(new Option(choice, choice));
          input.value = setting.default;
        } else {
          input = document.createElement("input");
          if (setting.kind === "bool") { input.type = "checkbox"; input.checked = setting.default === true; }
          else {
            input.type = setting.kind === "int" ? "number" : "text"; input.value = setting.default;
            if (setting.min !== undefined) Object.assign(input, { min: setting.min, max: setting.max });
          }
        }
        input.dataset.setting = setting.name;
        input.dataset.default = setting.default;
        label.append(input, document.createTextNode(" " + setting.name.replace(/_/g, " ")));
        fields.append(label);
      }
      if (!entry.settings.length) fields.textContent = "No settings.";
    };
    rulesSelect.addEventListener("change", refresh);
    refresh();
    form.addEventListener("change", () => onChange());
    form.addEventListener("input", (event) => { if (event.target.type === "number") onChange(); });
  }

  // ------------------------------------------------------------------ showing a result

  /** Net gains -> who pays whom (debtors pay creditors, largest first). */
  const STANDARD_KEYS = new Set(["rules", "valid", "winning", "points", "breakdown", "payments", "transfers", "error",
    "note", "win_tile_taken"]);

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

  function renderResult(target, result, seat = null, { onWinTile = null } = {}) {
    target.replaceChildren();
    if (!result) return;
    const head = document.createElement("div");
    head.className = "points-line";
    if (result.question === "win_tile") {
      // not a dead hand: only the winning tile is missing; one tap answers
      const box = document.createElement("div");
      box.className = "question";
      box.append(Object.assign(document.createElement("strong"), { textContent: "Which tile completed the hand?" }),
        Object.assign(document.createElement("p"), { className: "muted", textContent: "The score depends on it. Tap the tile that made Mahjong:" }));
      const choices = document.createElement("div");
      choices.className = "win-choices";
      for (const candidate of result.win_candidates || []) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "win-choice";
        button.dataset.winTile = candidate.tile;
        button.title = candidate.name;
        button.append(tileElement(candidate.tile), Object.assign(document.createElement("span"), { className: "win-points", textContent: `${candidate.points} points` }));
        if (onWinTile) button.addEventListener("click", () => onWinTile(candidate.tile));
        else button.disabled = true;
        choices.append(button);
      }
      box.append(choices);
      target.append(box);
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
    for (const [key, value] of Object.entries(result)) {
      if (STANDARD_KEYS.has(key) || value === null || value === false || value === 0 || typeof value === "object") continue;
      const name = key.replace(/_/g, " ");
      const text = value === true ? name : ["han", "fu"].includes(key) ? `${value} ${name}` : `${name} ${value}`;
      tags.append(Object.assign(document.createElement("span"), { className: "badge soft", textContent: text }));
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

  // ------------------------------------------------------------------ photos

  function checkPhoto(file) {
    if (!file) return "no photo chosen";
    if (file.type && !file.type.startsWith("image/")) return `${file.name || "that file"} is not a photo: choose a JPEG or PNG image`;
    if (file.size > LIMITS.max_upload_mb * 1024 * 1024) {
      return `the photo is ${(file.size / 1048576).toFixed(1)} MB; photos up to ${Number(LIMITS.max_upload_mb.toPrecision(3))} MB are accepted`;
    }
    return null;
  }

  function scanForm(file, context, { preview = false, seat = null } = {}) {
    const form = new FormData();
    form.append("image", file, "photo");
    form.append("rules", context.rules || "rode-draak");
    form.append("options", JSON.stringify(context.options || {}));
    form.append("seat_wind", seat || context.seat_wind || "E");
    form.append("prevalent_wind", context.prevalent_wind || "E");
    form.append("win", context.no_win ? "none" : context.self_drawn ? "self_drawn" : "discard");
    if (context.discarder) form.append("discarder", context.discarder);
    for (const [flag, on] of Object.entries(context.situation || {})) if (on) form.append(flag, "on");
    if (preview) form.append("preview", "1");
    return form;
  }

  /** The context as query fields of /api/live (the same names as a scan's form). */
  function contextQuery(context) {
    const form = scanForm(new Blob(), context);
    form.delete("image");
    return new URLSearchParams(Array.from(form.entries())).toString();
  }

  function readDataURL(file) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result);
      reader.onerror = () => reject(new Error("the photo could not be read"));
      reader.readAsDataURL(file);
    });
  }

  /** Boxes over the photo, in percent of the scanned image, so any display size fits. */
  function drawBoxes(layer, scan, state, onClick) {
    layer.replaceChildren();
    const width = scan.width || 1;
    const height = scan.height || 1;
    (scan.tiles || []).forEach((tile, index) => {
      const [x1, y1, x2, y2] = tile.box;
      const s = state.slotForScan(index);
      const box = document.createElement("button");
      box.type = "button";
      box.className = "box";
      box.dataset.scan = index;
      if (tile.face_down) box.classList.add("face-down");
      else if (!s) box.classList.add("unused");
      else {
        if (s.doubtful) box.classList.add("doubtful");
        if (s.edited) box.classList.add("edited");
      }
      Object.assign(box.style, {
        left: `${(100 * x1) / width}%`, top: `${(100 * y1) / height}%`,
        width: `${(100 * (x2 - x1)) / width}%`, height: `${(100 * (y2 - y1)) / height}%`,
      });
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = tile.face_down ? "back" : s ? shortName(s.code) + (s.doubtful ? "?" : "") : `${shortName(tile.tile)}?`;
      box.title = tile.face_down ? "face-down tile" : s ? `${tileName(s.code)} (${Math.round(100 * (tile.face_confidence ?? tile.confidence))}% sure)` : `${tileName(tile.tile)}: not used in the hand`;
      box.append(tag);
      box.addEventListener("click", () => onClick(index));
      layer.append(box);
    });
  }

  // ------------------------------------------------------------------ page: photo & score

  function photoPage() {
    const form = $("#context");
    const status = $("#photo-status");
    const scoreBox = $("#score");
    let scan = null;
    let photoFile = null;
    let scoreTicket = 0;
    let timer = null;

    let handEdited = false;  // the player changed the hand since the photo was read
    const editor = new HandEditor($("#hand"), { onChange: () => { handEdited = true; redrawPhoto(); scheduleScore(); }, doraStrip: $("[data-strip=dora]", form), uraStrip: $("[data-strip=ura]", form) });
    setupContextForm(form, () => scheduleScore());

    function scheduleScore() {
      clearTimeout(timer);
      timer = setTimeout(scoreNow, 120);
    }

    async function scoreNow() {
      const ticket = ++scoreTicket;  // only the newest answer is drawn
      const state = editor.state;
      $("#referee-verdict").hidden = true;  // a verdict was about the hand as it was
      updateDoubtful();
      if (!state.concealed.length && !state.melds.length && !state.win) {
        scoreBox.innerHTML = '<p class="muted">The score appears when there is a hand.</p>';
        return;
      }
      const context = readContext(form);
      scoreBox.classList.add("busy");
      try {
        const result = await postJSON("/api/score", { hand: state.toHand(context), rules: context.rules, options: context.options });
        if (ticket !== scoreTicket) return;
        renderResult(scoreBox, result, context.seat_wind, { onWinTile: markWinTile });
        // the photo's warning was about the hand as read: once the player has put it right, say so
        if (scan && handEdited && status.classList.contains("warn")) {
          if (result.question === "win_tile") setStatus(status, "Tap the tile that completed the hand, under “Score”, to get the score.", "warn");
          else if (result.valid && !state.slots().some((s) => s.doubtful)) setStatus(status, `The hand is scored: ${result.points} points.`, "ok");
        }
      } catch (error) {
        if (ticket === scoreTicket) {
          scoreBox.innerHTML = '<p class="status error"></p>';
          scoreBox.firstChild.textContent = sentence(error.message);
        }
      } finally {
        if (ticket === scoreTicket) scoreBox.classList.remove("busy");
      }
    }

    /** The player's answer to "which tile completed the hand?": that tile becomes the winning one. */
    function markWinTile(code) {
      const state = editor.state;
      const at = state.concealed.map((s) => s.code).lastIndexOf(code);
      if (at < 0) return;
      if (state.win) state.concealed.push(state.win);
      state.win = state.concealed.splice(at, 1)[0];
      editor.changed();
    }

    function redrawPhoto() {
      if (scan) drawBoxes($("#photo-boxes"), scan, editor.state, onBoxClick);
    }

    function updateDoubtful() {
      const note = $("#doubtful");
      const doubtful = editor.state.slots().filter((s) => s.doubtful);
      note.hidden = doubtful.length === 0;
      if (!doubtful.length) return;
      note.replaceChildren();
      const text = document.createElement("span");
      text.textContent = `${doubtful.length} tile${doubtful.length > 1 ? "s" : ""} the camera is not sure of, marked in orange: check ${doubtful.length > 1 ? "them" : "it"} first. `;
      const go = document.createElement("button");
      go.type = "button";
      go.className = "link";
      go.textContent = "Check now";
      go.addEventListener("click", () => {
        const first = $("#hand .tile.doubtful");
        if (first) first.click();
      });
      note.append(text, go);
    }

    async function onBoxClick(index) {
      const state = editor.state;
      const s = state.slotForScan(index);
      if (s) {
        const element = $(`#hand .tile[data-scan="${index}"]`) || $(`[data-strip=dora] .tile[data-scan="${index}"]`);
        if (element) element.click();
        return;
      }
      const tile = scan.tiles[index];
      if (tile.face_down) return;
      const answer = await pickTile({ title: "Add this tile to the hand?", current: tile.tile, suggestions: [tile.tile] });
      if (!answer || answer.action !== "set") return;
      state.unused = state.unused.filter((i) => i !== index);
      state.concealed.push(slot(answer.code, { scan: index, edited: answer.code !== tile.tile }));
      editor.changed();
    }

    async function onPhoto(file) {
      const problem = checkPhoto(file);
      if (problem) { setStatus(status, sentence(problem), "error"); return; }
      photoFile = file;
      setStatus(status, "Reading the tiles…", "busy");
      const context = readContext(form);
      try {
        scan = await request("/api/scan", { method: "POST", body: scanForm(file, context, { preview: true }) });
      } catch (error) {
        scan = null;
        $("#photo-view").hidden = true;
        setStatus(status, sentence(error.message), "error");
        return;
      }
      const img = $("#photo-img");
      img.src = scan.preview || URL.createObjectURL(file);
      $("#photo-view").hidden = false;
      const ura = editor.state.ura;  // not on the photo: what the player entered stays
      editor.set(HandState.fromScan(scan));
      editor.state.ura = ura;
      editor.render();
      handEdited = false;
      redrawPhoto();
      const found = (scan.tiles || []).length;
      if (scan.question === "win_tile") {
        setStatus(status, `${found} tiles found and read. Tap the tile that completed the hand, under “Score”, to get the score.`, "warn");
      } else if (scan.error) {
        setStatus(status, `${found} tiles found. ${sentence(scan.error)} Correct the hand below: click a tile to change or remove it, or “+ tile” to add one.`, "warn");
      } else if (editor.state.slots().some((s) => s.doubtful)) {
        // not "all read" in green while a doubted tile may be what spoils the score
        const doubted = editor.state.slots().filter((s) => s.doubtful).length;
        setStatus(status, `${found} tiles found; the camera is not sure of ${doubted === 1 ? "one" : doubted} (marked in orange): click ${doubted === 1 ? "it" : "them"} to check.`, "warn");
      } else {
        setStatus(status, `${found} tiles found and read. Click any tile to correct it.`, "ok");
      }
      updateDoubtful();
      if (scan.result && scan.hand && !ura.length) renderResult(scoreBox, scan.result, context.seat_wind);
      else scoreNow();
    }

    for (const input of [$("#photo-file"), $("#photo-capture")]) {
      input.addEventListener("change", () => { if (input.files[0]) onPhoto(input.files[0]); input.value = ""; });
    }
    for (const button of $$("[data-add]")) button.addEventListener("click", () => editor.add(button.dataset.add));
    for (const button of $$("[data-add-meld]")) button.addEventListener("click", () => editor.addMeld(button.dataset.addMeld));
    $("#hand-clear").addEventListener("click", () => {
      scan = null;
      photoFile = null;
      $("#photo-view").hidden = true;
      editor.clear();
    });

    // the referee: the claim against the computed score, recorded on the server
    const verdict = $("#referee-verdict");
    $("#referee-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const refereeForm = event.target;
      const context = readContext(form);
      const claimed = refereeForm.elements.claimed_points.value.trim();
      if (!/^-?\d+$/.test(claimed)) { verdict.hidden = false; verdict.className = "verdict bad"; verdict.textContent = "Enter the claimed score as a whole number."; return; }
      const payload = {
        hand: editor.state.toHand(context), rules: context.rules, options: context.options,
        claimed_points: Number(claimed), claimed_breakdown: refereeForm.elements.claimed_breakdown.value,
      };
      try {
        if (photoFile) payload.photo = await readDataURL(photoFile);
        const answer = await postJSON("/api/referee", payload);
        verdict.hidden = false;
        verdict.className = `verdict ${answer.agree ? "ok" : "bad"}`;
        verdict.replaceChildren();
        const title = document.createElement("strong");
        title.textContent = answer.agree ? `Agree: ${answer.computed.points} points.` : "Disagree.";
        verdict.append(title);
        if (answer.differences.length) {
          const list = document.createElement("ul");
          for (const line of answer.differences) list.append(Object.assign(document.createElement("li"), { textContent: line }));
          verdict.append(list);
        }
        const note = document.createElement("p");
        note.className = "muted";
        note.innerHTML = `Recorded as check <a href="/referee">#${answer.check.id}</a>.`;
        verdict.append(note);
      } catch (error) {
        verdict.hidden = false;
        verdict.className = "verdict bad";
        verdict.textContent = sentence(error.message);
      }
    });
  }

  // ------------------------------------------------------------------ page: live

  function livePage() {
    const form = $("#context");
    const status = $("#live-status");
    const readingNote = $("#live-reading");
    const scoreBox = $("#score");
    const video = $("#live-video");
    const overlay = $("#live-overlay");
    const stream = $("#live-stream");
    const stopButton = $("#live-stop");
    const view = $(".live-view");
    let timer = null;
    let mediaStream = null;
    let lastKey = null;
    let sameCount = 0;
    let shownKey = null;
    let busy = false;

    const editor = new HandEditor($("#hand"), { onChange: () => score(), doraStrip: $("[data-strip=dora]", form), uraStrip: $("[data-strip=ura]", form), emptyText: "No stable hand yet." });
    setupContextForm(form, () => score());
    for (const button of $$("[data-add]")) button.addEventListener("click", () => editor.add(button.dataset.add));

    async function score() {
      const state = editor.state;
      if (state.isEmpty()) return;
      const context = readContext(form);
      try {
        renderResult(scoreBox, await postJSON("/api/score", { hand: state.toHand(context), rules: context.rules, options: context.options }), context.seat_wind);
      } catch (error) {
        scoreBox.textContent = sentence(error.message);
      }
    }

    function showReading(scanned, stable) {
      const key = scanned && scanned.hand ? JSON.stringify([scanned.hand.concealed, scanned.hand.melds, scanned.hand.win_tile]) : null;
      if (!stable || !key) {
        readingNote.textContent = scanned && scanned.error ? `Reading… ${sentence(scanned.error)}` : "Reading…";
        readingNote.className = "status muted";
        return;
      }
      readingNote.textContent = "Stable reading: this hand has been seen steadily.";
      readingNote.className = "status ok";
      if (key === shownKey) return;
      shownKey = key;
      editor.set(HandState.fromScan(scanned));
      score();
    }

    function stop() {
      clearInterval(timer);
      timer = null;
      if (mediaStream) mediaStream.getTracks().forEach((t) => t.stop());
      mediaStream = null;
      stream.removeAttribute("src");
      stream.hidden = true;
      view.hidden = true;
      video.hidden = true;
      overlay.hidden = true;
      stopButton.hidden = true;
      setStatus(status, "Stopped.");
    }

    async function tableCamera() {
      stop();
      stream.src = "/live/stream";
      stream.hidden = false;
      view.hidden = false;
      stopButton.hidden = false;
      setStatus(status, "Table camera: the boxes are drawn on the server.", "ok");
      timer = setInterval(async () => {
        try {
          const live = await request(`/api/live?${contextQuery(readContext(form))}`);
          if (live.error) setStatus(status, sentence(live.error), "error");
          showReading(live.reading || live.latest, Boolean(live.stable && live.reading));
        } catch (error) {
          setStatus(status, sentence(error.message), "error");
        }
      }, 1000);
    }

    async function browserCamera() {
      stop();
      if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
        setStatus(status, "This browser gives no camera to the page (browsers allow it on https or on localhost only).", "error");
        return;
      }
      try {
        mediaStream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: { ideal: 1280 } }, audio: false });
      } catch (error) {
        setStatus(status, `No camera: ${error.message || error.name}.`, "error");
        return;
      }
      video.srcObject = mediaStream;
      video.hidden = false;
      view.hidden = false;
      overlay.hidden = false;
      stopButton.hidden = false;
      await video.play();
      setStatus(status, "This device's camera: a picture goes to the server every second.", "ok");
      timer = setInterval(sendFrame, 1000);
    }

    async function sendFrame() {
      if (busy || !video.videoWidth) return;
      busy = true;
      try {
        const canvas = document.createElement("canvas");
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        canvas.getContext("2d").drawImage(video, 0, 0);
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.85));
        const scanned = await request("/api/scan", { method: "POST", body: scanForm(blob, readContext(form)) });
        drawOverlay(scanned);
        const key = scanned.hand ? JSON.stringify(scanned.hand) : null;
        sameCount = key && key === lastKey ? sameCount + 1 : 1;
        lastKey = key;
        showReading(scanned, sameCount >= 2);
      } catch (error) {
        setStatus(status, sentence(error.message), "error");
      } finally {
        busy = false;
      }
    }

    function drawOverlay(scanned) {
      overlay.width = video.clientWidth;
      overlay.height = video.clientHeight;
      const g = overlay.getContext("2d");
      g.clearRect(0, 0, overlay.width, overlay.height);
      const sx = overlay.width / (scanned.width || 1);
      const sy = overlay.height / (scanned.height || 1);
      const doubtful = new Set(scanned.doubtful || []);
      g.lineWidth = 2;
      g.font = "bold 13px system-ui, sans-serif";
      (scanned.tiles || []).forEach((tile, index) => {
        const [x1, y1, x2, y2] = tile.box;
        g.strokeStyle = doubtful.has(index) ? "#f59e0b" : "#22c55e";
        g.strokeRect(x1 * sx, y1 * sy, (x2 - x1) * sx, (y2 - y1) * sy);
        g.fillStyle = g.strokeStyle;
        g.fillText(tile.face_down ? "back" : tile.tile, x1 * sx + 2, y1 * sy - 3);
      });
    }

    const tableButton = $("#live-table");
    if (tableButton) tableButton.addEventListener("click", tableCamera);
    $("#live-browser").addEventListener("click", browserCamera);
    stopButton.addEventListener("click", stop);
  }

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
      const win = data.get("win") || "discard";
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
        editors[seat].set(HandState.fromScan(scanned));
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

    $("#table-settle").addEventListener("click", async () => {
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
        for (const wind of WINDS) {
          const section = $(`.seat[data-seat="${wind}"]`);
          const result = (outcome.seats || {})[wind];
          $(".seat-result", section).textContent = result ? (result.valid ? `${result.points} points` : "not valid") : "";
          renderResult($(".seat-detail", section), result ? { ...result, payments: {} } : null);
        }
        $("#table-outcome").hidden = false;
        $("#table-payments").replaceChildren(renderPayments(outcome.payments || {}, null, outcome.transfers || []));
        fillTableSlip(outcome);
        setStatus(status, "Settled.", "ok");
      } catch (error) {
        setStatus(status, sentence(error.message), "error");
      }
    });
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

  // ------------------------------------------------------------------ page: referee records

  function refereePage() {
    for (const cell of $$("[data-hand]")) {
      try {
        const hand = JSON.parse(cell.dataset.hand);
        const state = HandState.fromHand(hand);
        for (const s of [...sortSlots(state.concealed), ...state.melds.flatMap((m) => m.tiles), ...(state.win ? [state.win] : [])]) {
          cell.append(tileElement(s.code, { classes: s === state.win ? ["win"] : [] }));
        }
        cell.nextElementSibling.hidden = true;  // the notation stays for tiles the page cannot draw
      } catch (error) { /* an unreadable hand keeps its notation */ }
    }
  }

  // no form on these pages is sent by the browser itself: the scripts send what is needed
  // (the tournament desk's forms, marked data-native, are plain forms the server answers)
  for (const form of $$("form:not([method=dialog]):not([data-native])")) form.addEventListener("submit", (event) => event.preventDefault());

  const pages = { photo: photoPage, live: livePage, table: tablePage, referee: refereePage };
  const page = pages[document.body.dataset.page];
  if (page) page();
  window.mahjongLens = { parseTiles, formatTiles, HandState };
})();
