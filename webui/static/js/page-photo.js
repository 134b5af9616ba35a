/* mahjong-lens, page-photo.js: The photo & score page (and the referee's check). */
import { $, $$, postJSON, request, sentence, setStatus } from "./dom.js";
import { HandState, slot } from "./hand.js";
import { tileName } from "./tiles.js";
import { pickTile } from "./picker.js";
import { HandEditor } from "./editor.js";
import { readContext, setupContextForm } from "./context.js";
import { renderResult } from "./results.js";
import { answerHandlers } from "./answers.js";
import { checkPhoto, drawBoxes, readDataURL, scanForm } from "./photos.js";

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
      renderResult(scoreBox, result, context.seat_wind, { onWinTile: markWinTile, onKong: markKong, onNotWon: markNotWon, onRedFive: markRedFive, onWinWay: markWinWay });
      // the photo's warning was about the hand as read: once the player has put it right, say so
      if (scan && handEdited && status.classList.contains("warn")) {
        if (result.question) setStatus(status, "Answer the question under “Score” with a tap to get the score.", "warn");
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

  // the answers to the questions under "Score", each one tap (answers.js)
  const { onWinTile: markWinTile, onKong: markKong, onNotWon: markNotWon, onRedFive: markRedFive, onWinWay: markWinWay } =
    answerHandlers(() => editor, form, () => scheduleScore());

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
    // a tile taken as the camera's next choice says why: it makes its meld a set, or the hand a win
    for (const s of doubtful.filter((s) => s.firstReading && s.firstReading !== s.code)) {
      const why = s.rereadFor === "set" ? "its meld a set" : "the hand a win";
      text.textContent += `Taken as the ${tileName(s.code)} (the camera first read the ${tileName(s.firstReading)}): its next choice, which makes ${why}. `;
    }
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
      scan = await request("/api/scan", { method: "POST", body: scanForm(file, context, { preview: true, tileSet: $("#tile-set").value }) });
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
    if (scan.question) {
      const which = ["win_tile", "missing_win_tile"].includes(scan.question);
      setStatus(status, `${found} tiles found and read. ${which ? "Tap the tile that completed the hand" : "Answer the question"}, under “Score”, to get the score.`, "warn");
    } else if (scan.error) {
      setStatus(status, `${sentence(scan.error)} Correct the hand below: click a tile to change or remove it, or “+ tile” to add one.`, "warn");
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

  // teach a tile set: each box of the photo as the player left it (a face, or a face-down
  // tile); the boxes they removed are taught as no tile, on the server
  const teachStatus = $("#teach-status");
  // the set chosen for reading is the one a correction is most likely taught to
  $("#tile-set").addEventListener("change", (event) => { if (event.target.value) $("#teach-name").value = event.target.value; });
  $("#teach-button").addEventListener("click", async () => {
    const name = $("#teach-name").value.trim();
    const say = (text, kind) => { teachStatus.hidden = false; setStatus(teachStatus, text, kind); };
    const layout = $("#teach-layout").checked;
    if (!scan || !photoFile) { say(layout ? "Read the photo of the laid-out set first." : "Read a photo of the set first, and put its hand right.", "warn"); return; }
    if (!name) { say("Give the set a name, such as “club blue set”.", "warn"); return; }
    const body = new FormData();
    body.append("image", photoFile, "photo");
    if (layout) {
      body.append("layout", "1");  // the server names the tiles by their places in the printed order
    } else {
      const tiles = editor.state.slots().filter((s) => s.scan !== null).map((s) => {
        const seen = scan.tiles[s.scan];
        return { box: seen.box, tile: seen.face_down ? "back" : s.code };
      });
      body.append("tiles", JSON.stringify(tiles));
    }
    say("Teaching…", "busy");
    try {
      const answer = await request(`/api/tile-sets/${encodeURIComponent(name)}/teach`, { method: "POST", body });
      const boxes = answer.not_a_tile === 1 ? "box" : "boxes";
      say(`Taught to “${answer.tile_set}”: ${answer.faces} tiles and ${answer.not_a_tile} ${boxes} on no tile. Choose it under “Tile set” to read its photos.`, "ok");
      const select = $("#tile-set");
      if (![...select.options].some((o) => o.value === answer.tile_set)) {
        select.append(Object.assign(document.createElement("option"), { value: answer.tile_set, textContent: answer.tile_set }));
      }
    } catch (error) {
      say(sentence(error.message), "error");
    }
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

export { photoPage };
