/* mahjong-lens, dom.js: Finding elements, talking to the server, saying things: shared by every page. */

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
const RULE_SETS = JSON.parse($("#rule-sets").textContent || "[]");
const LIMITS = JSON.parse($("#limits").textContent || "{}");

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

export { $, $$, LIMITS, RULE_SETS, postJSON, request, sentence, setStatus };
