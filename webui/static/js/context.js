/* mahjong-lens, context.js: The rules and the situation form, and each rule set's settings. */
import { $, $$, RULE_SETS } from "./dom.js";

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

/** The answer to "self-drawn or a discard?" put into a form's radios (and its discarder). */
function setWinWay(form, way, discarder = null) {
  const radio = form.querySelector(`input[name=win][value=${way}]`);
  if (radio) radio.checked = true;
  if (way === "discard" && discarder && form.elements.discarder) form.elements.discarder.value = discarder;
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

export { readContext, setWinWay, setupContextForm };
