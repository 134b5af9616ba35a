/* mahjong-lens, page-live.js: The live page: the table camera or the browser's camera, read while it is steady. */
import { $, $$, postJSON, request, sentence, setStatus } from "./dom.js";
import { HandState } from "./hand.js";
import { HandEditor } from "./editor.js";
import { readContext, setupContextForm } from "./context.js";
import { renderResult } from "./results.js";
import { contextQuery, scanForm } from "./photos.js";
import { answerHandlers } from "./answers.js";
import { shortName } from "./tiles.js";

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

  // a question under "Score" is answered with one tap, as on the photo page
  const answers = answerHandlers(() => editor, form, () => score());

  async function score() {
    const state = editor.state;
    if (state.isEmpty()) return;
    const context = readContext(form);
    try {
      renderResult(scoreBox, await postJSON("/api/score", { hand: state.toHand(context), rules: context.rules, options: context.options }), context.seat_wind, answers);
    } catch (error) {
      scoreBox.textContent = sentence(error.message);
    }
  }

  /** What the camera read now (`scanned`) and whether it has been steady: a steady hand goes
   * into the editor and is scored, or its question asked, once; an unsteady one only says so. */
  function showReading(scanned, stable) {
    const read = scanned && (scanned.reading || scanned.hand);
    const key = read ? JSON.stringify(read) : null;
    if (!stable || !key) {
      readingNote.textContent = scanned && scanned.error && !scanned.question ? `Reading… ${sentence(scanned.error)}` : "Reading…";
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
        else if (status.classList.contains("error")) setStatus(status, "Table camera: the boxes are drawn on the server.", "ok");
        // the steady reading while the picture is steady, else what the camera reads now: the
        // words never lag the picture
        const steady = Boolean(live.stable && live.reading);
        showReading(steady ? live.reading : live.latest, steady);
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
      g.fillText(shortName(tile.face_down ? "back" : tile.tile), x1 * sx + 2, y1 * sy - 3);
    });
  }

  const tableButton = $("#live-table");
  if (tableButton) tableButton.addEventListener("click", tableCamera);
  $("#live-browser").addEventListener("click", browserCamera);
  stopButton.addEventListener("click", stop);
}

export { livePage };
