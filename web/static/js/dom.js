// Tiny DOM helpers: build elements without innerHTML (so server text is never parsed as markup).

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    // through the CSSOM: the Content-Security-Policy refuses style attributes (style-src 'self')
    else if (key === "style") el.style.cssText = String(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let toastTimer;
export function toast(text) {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = text;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 4000);
}

// A side as a label: its name capitalised ("nationalist" -> "Nationalist"), never the lower-case
// id as it is sent.
export function sideName(side) {
  return side ? humanize(side) : "";
}

// "1 game", "3 games": a count with its noun, never "game(s)".
export function plural(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

export function humanize(name) {
  const words = String(name).replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// Raw facts a click away: a small button that shows (and hides) `text()` beside it.  Nothing is in
// the page until it is asked for, so the words stay the only thing read out.
export function rawFacts(label, text) {
  const box = h("span", { class: "raw" });
  const button = h("button", { type: "button", class: "link raw-toggle", "aria-expanded": "false", "aria-label": label }, "facts");
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    clear(box, open ? h("code", {}, text()) : null);
  });
  return h("span", { class: "raw-facts" }, button, box);
}

// A rule reference as a player reads it: "7" -> "rule 7", "TEC" -> "the Terrain Effects Chart"
// (the server's service/rules/base.py rule_words, never the bare abbreviation).
const CHARTS = { TEC: "the Terrain Effects Chart", CRT: "the Combat Results Table" };
export const ruleWords = (rule) => CHARTS[String(rule).toUpperCase()] || `rule ${rule}`;
