/* mahjong-lens, picker.js: The tile picker: a dialog that asks which tile it is. */
import { $ } from "./dom.js";
import { tileElement } from "./tiles.js";

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

export { pickTile };
