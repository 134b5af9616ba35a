/* mahjong-lens, photos.js: Photos: checked before sending, sent with the context, their boxes drawn. */
import { LIMITS } from "./dom.js";
import { shortName, tileName } from "./tiles.js";

// ------------------------------------------------------------------ photos

function checkPhoto(file) {
  if (!file) return "no photo chosen";
  if (file.type && !file.type.startsWith("image/")) return `${file.name || "that file"} is not a photo: choose a JPEG or PNG image`;
  if (file.size > LIMITS.max_upload_mb * 1024 * 1024) {
    return `the photo is ${(file.size / 1048576).toFixed(1)} MB; photos up to ${Number(LIMITS.max_upload_mb.toPrecision(3))} MB are accepted`;
  }
  return null;
}

function scanForm(file, context, { preview = false, seat = null, tileSet = "" } = {}) {
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
  if (tileSet) form.append("tile_set", tileSet);
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

export { checkPhoto, contextQuery, drawBoxes, readDataURL, scanForm };
