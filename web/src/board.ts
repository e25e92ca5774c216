// The board as plain SVG: jungle tiles, worker tiles with their workers on the sides,
// temple majorities, the cells a chosen tile may go to, a ghost of the tile under the
// pointer, the pending fill choice, the AI's candidates as a heat map, and the
// coordinates along the visible edges.
import type {
  Action, BoardTile, Evaluation, Fill, JungleTile, Position, TempleForecast, TempleStanding, WorkerTile,
} from "@cacaoai/client";
import { faces, fillsOf, jungleName, placement, workerName } from "./game";

export const CELL = 64;

// Seat colours (named in names.ts) from the Okabe-Ito palette (distinct for the common colour-vision
// deficiencies), each with a shape of its own for its workers, a light tint for its
// tiles, a text colour readable on white, and the text colour to write on it.
export const SEAT_COLOURS = ["#D55E00", "#F0E442", "#CC79A7", "#0072B2"];
export const SEAT_LIGHT = ["#F7D9C4", "#FAF4BE", "#F3DCE8", "#C9DDEE"];
export const SEAT_INK = ["#A34600", "#6E6500", "#9C3F73", "#0072B2"];
export const SEAT_ON = ["#000", "#000", "#000", "#fff"];
export const SEAT_SHAPES = ["circle", "square", "triangle", "diamond"] as const;
/** The water tile's colour: a sky blue, lighter than the blue seat's, and drawn with waves. */
export const WATER = "#56B4E9";

const JUNGLE_STYLE: Record<string, { fill: string; label: string; icon: string }> = {
  "plantation-1": { fill: "#5b9b3c", label: "plantation", icon: "●" },
  "plantation-2": { fill: "#3f7f2a", label: "plantation", icon: "●●" },
  "market-2": { fill: "#c98a3b", label: "market", icon: "2" },
  "market-3": { fill: "#c98a3b", label: "market", icon: "3" },
  "market-4": { fill: "#c98a3b", label: "market", icon: "4" },
  "gold-1": { fill: "#b89a2e", label: "gold mine", icon: "1" },
  "gold-2": { fill: "#b89a2e", label: "gold mine", icon: "2" },
  water: { fill: WATER, label: "water", icon: "≈" },
  sun: { fill: "#e67e22", label: "sun", icon: "☀" },
  temple: { fill: "#8d8d80", label: "temple", icon: "⌂" },
};

export interface Cell { x: number; y: number }
export interface Ghost {
  tile: WorkerTile; x: number; y: number; rotation: number; seat: number; legal: boolean;
  pending?: boolean; // waits for the choice of fills
  chosen?: boolean; // on the cell a tap or the keyboard chose (not just under the mouse)
}
/** A heat map of the candidates: per cell, its share of the visits or its best win chance. */
export type HeatBy = "visits" | "win";
export interface BoardView {
  position: Position;
  targets?: Map<string, "place" | "overbuild">; // cells the chosen tile may go to
  ghost?: Ghost | null;
  selected?: Cell | null; // the cell a tap chose (placed by a second tap)
  marked?: Cell[]; // the last move's cells
  temples?: TempleStanding[]; // workers per seat facing each temple (the service's standing)
  fills?: { cells: Cell[]; preview: Fill[] } | null; // the pending "which display tile goes where"
  heat?: { evaluation: Evaluation; by: HeatBy } | null;
  best?: Action | null; // an action ringed and starred (a practice's answer)
  forecast?: TempleForecast[] | null; // each temple's chances of first place, per seat
}
/** The drawn area in board units (the coordinates' bands included). */
export interface Box { x: number; y: number; w: number; h: number }

const NS = "http://www.w3.org/2000/svg";
export function el(tag: string, attrs: Record<string, string | number>, parent?: Element, text?: string): SVGElement {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  parent?.appendChild(e);
  return e;
}

/** A seat's shape centred on (cx, cy) with radius r. */
export function seatMark(parent: Element, seat: number, cx: number, cy: number, r: number,
                         attrs: Record<string, string | number> = {}): SVGElement {
  const shape = SEAT_SHAPES[seat] ?? "circle";
  const style = { fill: SEAT_COLOURS[seat], stroke: "#222", "stroke-width": 0.8, "data-shape": shape, ...attrs };
  if (shape === "square") return el("rect", { x: cx - r * 0.9, y: cy - r * 0.9, width: r * 1.8, height: r * 1.8, ...style }, parent);
  if (shape === "triangle") {
    return el("polygon", { points: `${cx},${cy - r * 1.15} ${cx + r * 1.1},${cy + r * 0.8} ${cx - r * 1.1},${cy + r * 0.8}`, ...style }, parent);
  }
  if (shape === "diamond") {
    return el("polygon", { points: `${cx},${cy - r * 1.25} ${cx + r * 1.05},${cy} ${cx},${cy + r * 1.25} ${cx - r * 1.05},${cy}`, ...style }, parent);
  }
  return el("circle", { cx, cy, r, ...style }, parent);
}

/** A small inline SVG of a seat's shape in its colour, for HTML. */
export function seatBadge(seat: number, size = 12): string {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "-7 -7 14 14");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("class", "badge");
  svg.setAttribute("aria-hidden", "true");
  seatMark(svg, seat, 0, 0, 5.2);
  return svg.outerHTML;
}

/** A jungle tile drawn at (px, py) with side `size`. */
export function jungleTile(parent: Element, tile: JungleTile, px: number, py: number, size = CELL, extra = ""): SVGElement {
  const name = jungleName(tile), style = JUNGLE_STYLE[name] ?? { fill: "#777", label: name, icon: "?" };
  const g = el("g", { class: `jungle ${name} ${extra}`.trim(), "data-tile": name }, parent);
  el("rect", { x: px + 1, y: py + 1, width: size - 2, height: size - 2, rx: 6, fill: style.fill, stroke: "#2b2b20", "stroke-width": 1 }, g);
  const s = size / CELL;
  if (name === "water") { // waves, so that water never reads as a seat's colour alone
    for (const dy of [0.2, 0.32]) {
      const y = py + size * dy, w = size / 8;
      el("path", { d: `M${px + size * 0.15},${y} q${w / 2},${-4 * s} ${w},0 t${w},0 t${w},0 t${w},0 t${w},0 t${w},0`,
        fill: "none", stroke: "#fff", "stroke-width": 1.6 * s, opacity: 0.85 }, g);
    }
  }
  const dark = name === "water";
  el("text", { x: px + size / 2, y: py + size * 0.62, "text-anchor": "middle", "font-size": 22 * s, fill: dark ? "#04324d" : "#fff", "font-weight": 700 }, g, style.icon);
  el("text", { x: px + size / 2, y: py + size * 0.88, "text-anchor": "middle", "font-size": 10 * s, fill: dark ? "#04324d" : "#fff" }, g, style.label);
  return g;
}

/** A worker tile with its workers on the sides, turned `rotation` quarter turns clockwise. */
export function workerTile(parent: Element, tile: WorkerTile, seat: number, rotation: number, px: number, py: number,
                           size = CELL, extra = ""): SVGElement {
  const g = el("g", { class: `worker ${extra}`.trim(), "data-tile": workerName(tile), "data-seat": seat, "data-rotation": rotation }, parent);
  el("rect", { x: px + 1.5, y: py + 1.5, width: size - 3, height: size - 3, rx: 5, fill: SEAT_COLOURS[seat], stroke: "#2b2b20", "stroke-width": 1 }, g);
  el("rect", { x: px + 5, y: py + 5, width: size - 10, height: size - 10, rx: 3, fill: SEAT_LIGHT[seat], stroke: "#2b2b20", "stroke-width": 0.6 }, g);
  const sides = faces(tile);
  const c = size / 2, r = size * 0.075, inset = size * 0.17;
  for (let k = 0; k < 4; k++) {
    const d = (k + rotation) % 4, n = sides[k];
    for (let i = 0; i < n; i++) {
      const along = (i - (n - 1) / 2) * r * 2.7;
      const [dx, dy] = [[along, -c + inset], [c - inset, along], [along, c - inset], [-c + inset, along]][d];
      seatMark(g, seat, px + c + dx, py + c + dy, r, { class: "meeple" });
    }
  }
  return g;
}

const key = (x: number, y: number) => `${x},${y}`;

/** The cells of a placement action: the worker tile's and its fills'. */
export function actionCells(a: Action): Cell[] {
  const p = placement(a);
  if (!p) return [];
  return [{ x: p.x, y: p.y }, ...("fills" in p ? p.fills : []).map((f) => ({ x: f.x, y: f.y }))];
}

/** Per cell, the candidates' visits (summed), their best win chance and whether a candidate there
 *  is exact (the endgame solver's value, perhaps with no visits); the best action's cell. */
export function heatCells(ev: Evaluation): { cells: Map<string, { visits: number; win: number; exact: boolean }>; total: number } {
  const cells = new Map<string, { visits: number; win: number; exact: boolean }>();
  let total = 0;
  for (const c of ev.candidates) {
    const p = c.action && placement(c.action);
    if (!p) continue;
    const v = Number(c.visits), k = key(p.x, p.y), cell = cells.get(k) ?? { visits: 0, win: 0, exact: false };
    cell.visits += v;
    cell.win = Math.max(cell.win, c.winProbability);
    cell.exact ||= c.exact;
    cells.set(k, cell);
    total += v;
  }
  return { cells, total };
}

/** A colour from light yellow (low) to dark purple (high): a perceptually ordered scale
 *  (after matplotlib's "magma") that reads the same to colour-blind eyes. */
export function heatColour(t: number): string {
  const stops = [[252, 253, 191], [252, 137, 97], [183, 55, 121], [81, 18, 124], [0, 0, 4]];
  const u = Math.max(0, Math.min(1, t)) * (stops.length - 2); // the darkest stop is left out: labels stay readable
  const i = Math.min(Math.floor(u), stops.length - 3), f = u - i;
  const mix = stops[i].map((a, j) => Math.round(a + (stops[i + 1][j] - a) * f));
  return `rgb(${mix.join(",")})`;
}

/** Draws the board into `svg`, sized to the tiles and the targets plus a margin; returns the drawn box. */
export function drawBoard(svg: SVGSVGElement, view: BoardView): Box {
  const p = view.position;
  const cells = new Map<string, BoardTile>();
  let minX = 0, maxX = 1, minY = 0, maxY = 1;
  const grow = (x: number, y: number) => {
    minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  };
  for (const t of p.board) { cells.set(key(t.x, t.y), t); grow(t.x, t.y); }
  minX -= 1; maxX += 1; minY -= 1; maxY += 1;
  for (const k of view.targets?.keys() ?? []) { const [x, y] = k.split(",").map(Number); grow(x, y); }
  svg.replaceChildren();
  const layer = (cls: string) => el("g", { class: cls }, svg);
  const cellLayer = layer("cells");
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const px = x * CELL, py = y * CELL, k = key(x, y), t = cells.get(k);
      const target = view.targets?.get(k);
      const cell = el("g", { class: "cell", "data-x": x, "data-y": y }, cellLayer);
      el("rect", { x: px, y: py, width: CELL, height: CELL, class: target ? `target ${target}` : "empty" }, cell);
      if (t?.tile.case === "jungle") jungleTile(cell, t.tile.value, px, py);
      if (t?.tile.case === "worker") {
        const w = t.tile.value;
        if (w.covers) el("rect", { x: px + 6, y: py + 6, width: CELL - 4, height: CELL - 4, rx: 4, fill: "#999", opacity: 0.6 }, cell);
        workerTile(cell, w.tile, w.seat, w.rotation, px, py);
      }
      if (target === "overbuild") el("rect", { x: px + 2, y: py + 2, width: CELL - 4, height: CELL - 4, class: "target-ring" }, cell);
    }
  }
  const overlay = layer("overlay"); // nothing here takes a click: the cells below do
  for (const m of view.marked ?? []) {
    el("rect", { x: m.x * CELL + 1, y: m.y * CELL + 1, width: CELL - 2, height: CELL - 2, class: "marked" }, overlay);
  }
  if (view.heat) drawHeat(overlay, view.heat.evaluation, view.heat.by, view.ghost ?? null);
  if (view.best) drawBest(el("g", { class: "practice-best" }, overlay), view.best);
  if (view.forecast) drawForecast(overlay, view.forecast);
  if (view.fills) {
    const g = el("g", { class: "fill-choice" }, overlay);
    for (const c of view.fills.cells) {
      el("rect", { x: c.x * CELL + 3, y: c.y * CELL + 3, width: CELL - 6, height: CELL - 6, rx: 5, class: "fill-target", "data-x": c.x, "data-y": c.y }, g);
    }
    for (const f of view.fills.preview) jungleTile(g, f.tile, f.x * CELL + 8, f.y * CELL + 8, CELL - 16, "fill-preview");
    for (const c of view.fills.cells) {
      el("text", { x: c.x * CELL + CELL - 8, y: c.y * CELL + 15, "text-anchor": "end", class: "fill-mark" }, g, "?");
    }
  }
  for (const temple of view.temples ?? []) {
    const g = el("g", { class: "majority" }, overlay);
    const seats = temple.workers.map((n, s) => [n, s]).filter(([n]) => n > 0).sort((a, b) => b[0] - a[0]);
    seats.forEach(([n, s], i) => {
      const cx = temple.x * CELL + 10 + i * 17, cy = temple.y * CELL + 11;
      el("rect", { x: cx - 8, y: cy - 8, width: 16, height: 16, rx: 4, fill: "#fff", opacity: 0.9 }, g);
      seatMark(g, s, cx - 2.5, cy, 4.2);
      el("text", { x: cx + 5, y: cy + 3.5, "text-anchor": "middle", "font-size": 9, fill: "#111", "font-weight": 700 }, g, String(n));
    });
  }
  if (view.selected) {
    el("rect", { x: view.selected.x * CELL + 1, y: view.selected.y * CELL + 1, width: CELL - 2, height: CELL - 2, class: "selected" }, overlay);
  }
  const ghost = view.ghost;
  if (ghost) {
    workerTile(overlay, ghost.tile, ghost.seat, ghost.rotation, ghost.x * CELL, ghost.y * CELL, CELL,
      `ghost${ghost.pending ? " pending" : ""}${ghost.chosen ? " chosen" : ""}${ghost.legal ? "" : " illegal"}`);
  }
  el("g", { class: "coords" }, svg);
  const band = COORD_BAND;
  return { x: minX * CELL - band, y: minY * CELL - band, w: (maxX - minX + 1) * CELL + band, h: (maxY - minY + 1) * CELL + band };
}

function drawHeat(parent: Element, ev: Evaluation, by: HeatBy, under: Cell | null): void {
  const { cells, total } = heatCells(ev);
  if (!cells.size) return;
  const g = el("g", { class: "heat", "data-by": by }, parent);
  const values = [...cells.values()].map((c) => (by === "visits" ? c.visits / Math.max(total, 1) : c.win));
  const top = Math.max(...values, 1e-9);
  for (const [k, c] of cells) {
    const [x, y] = k.split(",").map(Number);
    if (under && under.x === x && under.y === y) continue; // the tile drawn there says more
    const value = by === "visits" ? c.visits / Math.max(total, 1) : c.win;
    const t = value / top;
    const colour = heatColour(t);
    const cell = el("g", { class: "heat-cell", "data-x": x, "data-y": y, "data-value": value.toFixed(4) }, g);
    el("rect", { x: x * CELL + 4, y: y * CELL + 4, width: CELL - 8, height: CELL - 8, rx: 6, fill: colour, opacity: 0.35 + 0.45 * t,
      stroke: colour, "stroke-width": 2 }, cell);
    if (c.exact || c.visits / Math.max(total, 1) >= 0.005) { // a cell the search hardly tried is tinted, not labelled
      // one number a move: its win chance, as the list of candidates says (the colour shows the measure)
      el("text", { x: x * CELL + CELL / 2, y: y * CELL + CELL / 2 + 5, "text-anchor": "middle", "font-size": 15, "font-weight": 700,
        fill: t > 0.45 ? "#fff" : "#222", class: "heat-label" }, cell, `${Math.round(c.win * 100)}%`);
    }
  }
  if (ev.bestAction) drawBest(g, ev.bestAction);
}

/** An action ringed on its cells, its fills drawn small, a star on its tile's cell. */
function drawBest(parent: Element, action: Action): void {
  const best = placement(action);
  if (!best) return;
  const mark = el("g", { class: "best", "data-x": best.x, "data-y": best.y }, parent);
  for (const f of fillsOf(action)) jungleTile(mark, f.tile, f.x * CELL + 14, f.y * CELL + 14, CELL - 28, "best-fill");
  for (const c of actionCells(action)) {
    el("rect", { x: c.x * CELL + 1.5, y: c.y * CELL + 1.5, width: CELL - 3, height: CELL - 3, rx: 6, class: "best-ring" }, mark);
  }
  el("text", { x: best.x * CELL + 6, y: best.y * CELL + 17, "font-size": 16, class: "best-star" }, mark, "★");
}

/** On each temple, the seats' chances of first place (a shared first counts as a share): a
 *  bar split in the seats' colours along the cell's foot, and the leading seat's chance. */
function drawForecast(parent: Element, temples: TempleForecast[]): void {
  const g = el("g", { class: "forecast" }, parent);
  for (const t of temples) {
    const total = t.first.reduce((a, b) => a + b, 0);
    const cell = el("g", { class: "forecast-temple", "data-x": t.x, "data-y": t.y,
      "data-first": t.first.map((f) => f.toFixed(3)).join(" ") }, g);
    const px = t.x * CELL, py = t.y * CELL, w = CELL - 8, h = 12;
    el("rect", { x: px + 3, y: py + CELL - h - 15, width: w + 2, height: h + 14, rx: 3, fill: "#fff", opacity: 0.9 }, cell);
    let at = px + 4;
    t.first.forEach((f, s) => {
      const part = total > 0 ? (f / total) * w : 0;
      if (part <= 0) return;
      el("rect", { x: at, y: py + CELL - h - 4, width: part, height: h, fill: SEAT_COLOURS[s], "data-seat": s }, cell);
      at += part;
    });
    if (total <= 0) continue;
    const lead = t.first.indexOf(Math.max(...t.first));
    seatMark(cell, lead, px + 10, py + CELL - h - 9, 3.6);
    el("text", { x: px + CELL - 6, y: py + CELL - h - 6, "text-anchor": "end", "font-size": 10, "font-weight": 700, fill: "#111",
      class: "forecast-lead", "data-seat": lead }, cell, `${Math.round(t.first[lead] * 100)}%`);
    el("title", {}, cell, `temple (${t.x},${t.y}), first place: ` +
      t.first.map((f, s) => `${SEAT_SHAPES[s]} ${Math.round(f * 100)}%`).join(", "));
  }
}

/** Room for the coordinates above and to the left of the cells, in board units, at zoom 1. */
export const COORD_BAND = CELL * 0.42;

/** The coordinates of the columns and rows in view, along the top and left edges of `view`
 *  (x across, y down, as moves are written), at a constant size on the screen. */
export function drawCoords(svg: SVGSVGElement, view: Box, unitsPerPx: number, zoom: number): void {
  const g = svg.querySelector("g.coords");
  if (!g) return;
  g.replaceChildren();
  // the bands are the room the drawing keeps for them (COORD_BAND), so that at zoom 1 no label covers a cell
  const top = COORD_BAND / zoom, left = COORD_BAND / zoom;
  const font = Math.min(11 * unitsPerPx, left * 0.55);
  el("rect", { x: view.x, y: view.y, width: view.w, height: top, class: "coord-band" }, g);
  el("rect", { x: view.x, y: view.y, width: left, height: view.h, class: "coord-band" }, g);
  const cells = svg.querySelectorAll<SVGGElement>("g.cells > g.cell");
  const xs = new Set<number>(), ys = new Set<number>();
  cells.forEach((c) => { xs.add(Number(c.dataset.x)); ys.add(Number(c.dataset.y)); });
  for (const x of xs) {
    const cx = x * CELL + CELL / 2;
    if (cx < view.x + left || cx > view.x + view.w) continue;
    el("text", { x: cx, y: view.y + top / 2 + font * 0.36, "text-anchor": "middle", "font-size": font, class: "coord x", "data-x": x }, g, String(x));
  }
  for (const y of ys) {
    const cy = y * CELL + CELL / 2;
    if (cy < view.y + top || cy > view.y + view.h) continue;
    el("text", { x: view.x + left / 2, y: cy + font * 0.36, "text-anchor": "middle", "font-size": font, class: "coord y", "data-y": y }, g, String(y));
  }
  el("text", { x: view.x + left / 2, y: view.y + top / 2 + font * 0.36, "text-anchor": "middle", "font-size": font * 0.85, class: "coord corner" }, g, "x→");
  el("title", {}, g, "columns are x (growing to the right), rows are y (growing downwards): a move at (x,y)");
}
