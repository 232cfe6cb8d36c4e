// Zoom and pan for the board's SVG by its viewBox: the wheel (around the pointer), a pinch of two
// fingers, a drag of one, the buttons, and the keyboard (+, -, 0 to fit, arrows to pan) while the
// board has focus.  A drag of more than a few pixels is a pan, so it never selects what it ends on;
// a tap stays a click.  A minimap shows the whole map with the part in view framed; a click on it
// centres there.  The SVG gets a class for the zoom level (`zoom-tiny`, `zoom-far`, `zoom-mid`, `zoom-near`) so
// the page draws less detail when the map is small instead of tiny text.
import { s } from "./dom.js";

const DRAG = 6; // pixels a pointer moves before a press becomes a pan

export class PanZoom {
  // `svg`: the board; `size`: {width, height} of the whole drawing in SVG units; `minimap`: an
  // empty <svg> to draw the overview in (optional); `base`: the drawing to copy into the minimap.
  constructor(svg, size, { minimap = null, onChange = () => {} } = {}) {
    this.svg = svg;
    this.size = size;
    this.onChange = onChange;
    this.view = { x: 0, y: 0, w: size.width, h: size.height };
    this.pointers = new Map();
    this.panned = false;
    // whether the person has zoomed or panned (the page then leaves the view where they put it)
    this.moved = false;
    // pixels of the element hidden by what lies over it (a phone's orders sheet at its bottom):
    // the view may pan past the map's edge by as much, so every hex can still be brought into
    // the part a person sees
    this.cover = { top: 0, bottom: 0 };
    this.minimap = minimap;
    this.listen();
    this.fit();
  }

  // pixels on screen per SVG unit, for the current view
  scale() {
    const box = this.svg.getBoundingClientRect();
    if (!box.width || !box.height) return 1;
    return Math.min(box.width / this.view.w, box.height / this.view.h);
  }

  apply() {
    const { x, y, w, h } = this.view;
    this.svg.setAttribute("viewBox", `${x.toFixed(1)} ${y.toFixed(1)} ${w.toFixed(1)} ${h.toFixed(1)}`);
    const k = this.scale();
    this.svg.classList.toggle("zoom-tiny", k < 0.3);
    this.svg.classList.toggle("zoom-far", k < 0.55);
    this.svg.classList.toggle("zoom-mid", k >= 0.55 && k < 0.9);
    this.svg.classList.toggle("zoom-near", k >= 0.9);
    this.svg.dataset.zoom = k.toFixed(2);
    this.drawFrame();
    this.onChange(k);
  }

  // The view's aspect follows the element's, so `scale` is the same both ways.
  aspect() {
    const box = this.svg.getBoundingClientRect();
    return box.width && box.height ? box.height / box.width : this.size.height / this.size.width;
  }

  fit() {
    const a = this.aspect();
    const { width, height } = this.size;
    let w = width;
    let h = width * a;
    if (h < height) {
      h = height;
      w = height / a;
    }
    this.view = { x: (width - w) / 2, y: (height - h) / 2, w, h };
    this.apply();
  }

  // Zoom to `k` pixels per unit around the SVG point (cx, cy) (default: the view's centre).
  zoomTo(k, cx, cy) {
    const box = this.svg.getBoundingClientRect();
    const min = Math.min(box.width / this.size.width, box.height / this.size.height) * 0.8;
    k = Math.max(min, Math.min(4, k));
    const { x, y, w, h } = this.view;
    cx = cx ?? x + w / 2;
    cy = cy ?? y + h / 2;
    const nw = (box.width || w) / k;
    const nh = (box.height || h) / k;
    this.view = { x: cx - ((cx - x) / w) * nw, y: cy - ((cy - y) / h) * nh, w: nw, h: nh };
    this.clamp();
    this.apply();
  }

  zoomBy(factor, cx, cy) {
    this.zoomTo(this.scale() * factor, cx, cy);
  }

  // Centre the view on (cx, cy), zooming in to at least `k` when the map is shown smaller.
  centreOn(cx, cy, k = null) {
    if (k && this.scale() < k) this.zoomTo(k);
    const { w, h } = this.view;
    this.view = { ...this.view, x: cx - w / 2, y: cy - h / 2 };
    this.clamp();
    this.apply();
  }

  // Show every point (SVG units) in the part of the element a person sees (the element less its
  // `cover`), `pad` units clear of its edges: at `k` pixels a unit when they fit there (the scale
  // now when `k` is not given), else farther out until they do -- but never below `least` pixels
  // a unit: then the first point is in the middle and those near it around it.
  show(points, { k = null, pad = 0, least = 0 } = {}) {
    const box = this.svg.getBoundingClientRect();
    if (!points.length || !box.width || !box.height) return;
    const xs = points.map((p) => p.x);
    const ys = points.map((p) => p.y);
    const [x0, x1, y0, y1] = [Math.min(...xs) - pad, Math.max(...xs) + pad, Math.min(...ys) - pad, Math.max(...ys) + pad];
    const seenHeight = Math.max(box.height - this.cover.top - this.cover.bottom, box.height / 4);
    const fits = Math.min(box.width / (x1 - x0), seenHeight / (y1 - y0));
    const whole = Math.min(box.width / this.size.width, box.height / this.size.height) * 0.8;
    const scale = Math.max(whole, least, Math.min(4, k ?? this.scale(), fits));
    const [cx, cy] = fits >= scale ? [(x0 + x1) / 2, (y0 + y1) / 2] : [points[0].x, points[0].y];
    const middle = (box.height - this.cover.bottom + this.cover.top) / 2; // of the part seen, in pixels
    this.view = { x: cx - box.width / 2 / scale, y: cy - middle / scale, w: box.width / scale, h: box.height / scale };
    this.clamp();
    this.apply();
  }

  // Whether (cx, cy) is inside the middle of the part seen (a margin of `m` of its size).
  inView(cx, cy, m = 0.1) {
    const k = this.scale();
    const { x, w } = this.view;
    const y = this.view.y + this.cover.top / k;
    const h = Math.max(this.view.h - (this.cover.top + this.cover.bottom) / k, this.view.h / 4);
    return cx > x + w * m && cx < x + w * (1 - m) && cy > y + h * m && cy < y + h * (1 - m);
  }

  panBy(dx, dy) {
    this.view = { ...this.view, x: this.view.x + dx, y: this.view.y + dy };
    this.clamp();
    this.apply();
  }

  // Keep the map filling the view: no empty band beyond its edges (a small margin), and a map
  // smaller than the view stays centred in it.
  clamp() {
    const v = this.view;
    const { width, height } = this.size;
    const m = Math.min(width, height) * 0.02;
    const k = this.scale();
    const axis = (pos, span, size, before = 0, after = 0) =>
      span >= size + 2 * m + before + after ? (size - span) / 2 : Math.min(Math.max(pos, -m - before), size + m + after - span);
    v.x = axis(v.x, v.w, width);
    v.y = axis(v.y, v.h, height, this.cover.top / k, this.cover.bottom / k);
  }

  // An SVG point from a client (screen) point.
  point(clientX, clientY) {
    const box = this.svg.getBoundingClientRect();
    const k = this.scale();
    // preserveAspectRatio xMidYMid meet: the view is centred in the element
    const ox = (box.width - this.view.w * k) / 2;
    const oy = (box.height - this.view.h * k) / 2;
    return { x: this.view.x + (clientX - box.left - ox) / k, y: this.view.y + (clientY - box.top - oy) / k };
  }

  listen() {
    const svg = this.svg;
    svg.addEventListener(
      "wheel",
      (ev) => {
        ev.preventDefault();
        this.moved = true;
        const p = this.point(ev.clientX, ev.clientY);
        this.zoomBy(Math.exp(-ev.deltaY * (ev.deltaMode === 1 ? 0.05 : 0.0015)), p.x, p.y);
      },
      { passive: false },
    );
    svg.addEventListener("pointerdown", (ev) => {
      if (ev.button !== undefined && ev.button > 0) return;
      this.pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY, x0: ev.clientX, y0: ev.clientY });
      if (this.pointers.size === 1) this.panned = false;
      if (this.pointers.size === 2) this.pinch = this.spread();
    });
    svg.addEventListener("pointermove", (ev) => {
      const p = this.pointers.get(ev.pointerId);
      if (!p) return;
      if (this.pointers.size >= 2) {
        p.x = ev.clientX;
        p.y = ev.clientY;
        const now = this.spread();
        if (this.pinch && now.d > 0) {
          const c = this.point(now.x, now.y);
          this.zoomBy(now.d / this.pinch.d, c.x, c.y);
        }
        this.pinch = now;
        this.panned = true;
        this.moved = true;
        return;
      }
      if (!this.panned && Math.hypot(ev.clientX - p.x0, ev.clientY - p.y0) < DRAG) return;
      if (!this.panned) {
        this.panned = true;
        this.moved = true;
        svg.setPointerCapture(ev.pointerId);
        svg.classList.add("panning");
      }
      const k = this.scale();
      this.panBy((p.x - ev.clientX) / k, (p.y - ev.clientY) / k);
      p.x = ev.clientX;
      p.y = ev.clientY;
    });
    const up = (ev) => {
      this.pointers.delete(ev.pointerId);
      if (this.pointers.size < 2) this.pinch = null;
      if (!this.pointers.size) svg.classList.remove("panning");
    };
    svg.addEventListener("pointerup", up);
    svg.addEventListener("pointercancel", up);
    // a pan ends with a click on whatever is under the pointer: swallow it
    svg.addEventListener(
      "click",
      (ev) => {
        if (this.panned) {
          ev.stopPropagation();
          ev.preventDefault();
          this.panned = false;
        }
      },
      true,
    );
    svg.addEventListener("keydown", (ev) => {
      const step = this.view.w / 8;
      const keys = {
        "+": () => this.zoomBy(1.25),
        "=": () => this.zoomBy(1.25),
        "-": () => this.zoomBy(0.8),
        _: () => this.zoomBy(0.8),
        0: () => this.fit(),
        ArrowLeft: () => this.panBy(-step, 0),
        ArrowRight: () => this.panBy(step, 0),
        ArrowUp: () => this.panBy(0, -step),
        ArrowDown: () => this.panBy(0, step),
      };
      // arrows pan only when the board itself (not a counter) has focus
      if (ev.key.startsWith("Arrow") && ev.target !== svg) return;
      if (keys[ev.key] && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
        ev.preventDefault();
        this.moved = true;
        keys[ev.key]();
      }
    });
    new ResizeObserver(() => this.apply()).observe(svg);
  }

  spread() {
    const [a, b] = [...this.pointers.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  // -- minimap --------------------------------------------------------------------------------------
  // `layer`: an SVG group drawn at the board's scale (copied here, shown small).
  drawMinimap(layer) {
    const mini = this.minimap;
    if (!mini) return;
    mini.setAttribute("viewBox", `0 0 ${this.size.width} ${this.size.height}`);
    this.frame = s("rect", { class: "minimap-frame" });
    mini.replaceChildren(layer, this.frame);
    const go = (ev) => {
      this.moved = true;
      const box = mini.getBoundingClientRect();
      const k = Math.min(box.width / this.size.width, box.height / this.size.height);
      const ox = (box.width - this.size.width * k) / 2;
      const oy = (box.height - this.size.height * k) / 2;
      this.centreOn((ev.clientX - box.left - ox) / k, (ev.clientY - box.top - oy) / k);
    };
    mini.addEventListener("pointerdown", (ev) => {
      go(ev);
      mini.setPointerCapture(ev.pointerId);
    });
    mini.addEventListener("pointermove", (ev) => ev.buttons && go(ev));
    this.drawFrame();
  }

  drawFrame() {
    if (!this.frame) return;
    const { x, y, w, h } = this.view;
    // the minimap only when part of the map is out of view
    this.minimap.classList.toggle("whole", x <= 0 && y <= 0 && x + w >= this.size.width && y + h >= this.size.height);
    for (const [k, v] of Object.entries({ x, y, width: w, height: h })) this.frame.setAttribute(k, v.toFixed(1));
  }
}
