// The board as plain SVG: jungle tiles, worker tiles with their workers on the sides,
// temple majorities, the cells a chosen tile may go to and a ghost of the tile under the pointer.
import type { BoardTile, JungleTile, Position, TempleStanding, WorkerTile } from "@cacaoai/client";
import { faces, jungleName, workerName } from "./game";

export const CELL = 64;
export const SEAT_COLOURS = ["#c0392b", "#d4a017", "#7d3c98", "#2471a3"];
export const SEAT_LIGHT = ["#f5c6c0", "#f8e7a6", "#dcc6e8", "#c4dcf0"];
export const SEAT_NAMES = ["red", "yellow", "purple", "blue"];

const JUNGLE_STYLE: Record<string, { fill: string; label: string; icon: string }> = {
  "plantation-1": { fill: "#5b9b3c", label: "plantation", icon: "●" },
  "plantation-2": { fill: "#3f7f2a", label: "plantation", icon: "●●" },
  "market-2": { fill: "#c98a3b", label: "market", icon: "2" },
  "market-3": { fill: "#c98a3b", label: "market", icon: "3" },
  "market-4": { fill: "#c98a3b", label: "market", icon: "4" },
  "gold-1": { fill: "#b89a2e", label: "gold mine", icon: "1" },
  "gold-2": { fill: "#b89a2e", label: "gold mine", icon: "2" },
  water: { fill: "#3d8ec9", label: "water", icon: "≈" },
  sun: { fill: "#e67e22", label: "sun", icon: "☀" },
  temple: { fill: "#8d8d80", label: "temple", icon: "⌂" },
};

export interface Ghost { tile: WorkerTile; x: number; y: number; rotation: number; seat: number; legal: boolean }
export interface BoardView {
  position: Position;
  targets?: Map<string, "place" | "overbuild">; // cells the chosen tile may go to
  ghost?: Ghost | null;
  marked?: { x: number; y: number }[]; // the last move's cells
  temples?: TempleStanding[]; // workers per seat facing each temple (the service's standing)
  onCell?: (x: number, y: number, event: MouseEvent) => void;
  onHover?: (x: number, y: number) => void;
}

const NS = "http://www.w3.org/2000/svg";
function el(tag: string, attrs: Record<string, string | number>, parent?: Element, text?: string): SVGElement {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  parent?.appendChild(e);
  return e;
}

/** A jungle tile drawn at (px, py) with side `size`. */
export function jungleTile(parent: Element, tile: JungleTile, px: number, py: number, size = CELL): void {
  const name = jungleName(tile), style = JUNGLE_STYLE[name] ?? { fill: "#777", label: name, icon: "?" };
  const g = el("g", { class: `jungle ${name}`, "data-tile": name }, parent);
  el("rect", { x: px + 1, y: py + 1, width: size - 2, height: size - 2, rx: 6, fill: style.fill, stroke: "#2b2b20", "stroke-width": 1 }, g);
  const s = size / CELL;
  el("text", { x: px + size / 2, y: py + size * 0.55, "text-anchor": "middle", "font-size": 22 * s, fill: "#fff", "font-weight": 700 }, g, style.icon);
  el("text", { x: px + size / 2, y: py + size * 0.86, "text-anchor": "middle", "font-size": 10 * s, fill: "#fff" }, g, style.label);
}

/** A worker tile with its workers on the sides, turned `rotation` quarter turns clockwise. */
export function workerTile(parent: Element, tile: WorkerTile, seat: number, rotation: number, px: number, py: number,
                           size = CELL, extra = ""): SVGElement {
  const g = el("g", { class: `worker ${extra}`, "data-tile": workerName(tile) }, parent);
  el("rect", { x: px + 2, y: py + 2, width: size - 4, height: size - 4, rx: 4, fill: SEAT_LIGHT[seat], stroke: SEAT_COLOURS[seat], "stroke-width": 2 }, g);
  const sides = faces(tile);
  const c = size / 2, r = size * 0.075, inset = size * 0.16;
  for (let k = 0; k < 4; k++) {
    const d = (k + rotation) % 4, n = sides[k];
    for (let i = 0; i < n; i++) {
      const along = (i - (n - 1) / 2) * r * 2.6;
      const [dx, dy] = [[along, -c + inset], [c - inset, along], [along, c - inset], [-c + inset, along]][d];
      el("circle", { cx: px + c + dx, cy: py + c + dy, r, fill: SEAT_COLOURS[seat], stroke: "#222", "stroke-width": 0.8 }, g);
    }
  }
  return g;
}

/** Draws the board into `svg`, sized to the tiles and the targets plus a margin. */
export function drawBoard(svg: SVGSVGElement, view: BoardView): void {
  const p = view.position;
  const cells = new Map<string, BoardTile>();
  let minX = 0, maxX = 1, minY = 0, maxY = 1;
  const grow = (x: number, y: number) => {
    minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  };
  for (const t of p.board) { cells.set(`${t.x},${t.y}`, t); grow(t.x, t.y); }
  minX -= 1; maxX += 1; minY -= 1; maxY += 1;
  for (const key of view.targets?.keys() ?? []) { const [x, y] = key.split(",").map(Number); grow(x, y); }
  const width = (maxX - minX + 1) * CELL, height = (maxY - minY + 1) * CELL;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `${minX * CELL} ${minY * CELL} ${width} ${height}`);
  svg.style.aspectRatio = `${width} / ${height}`;
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const px = x * CELL, py = y * CELL, key = `${x},${y}`, t = cells.get(key);
      const target = view.targets?.get(key);
      const cell = el("g", { class: "cell", "data-x": x, "data-y": y }, svg);
      el("rect", { x: px, y: py, width: CELL, height: CELL, class: target ? `target ${target}` : "empty" }, cell);
      if (t?.tile.case === "jungle") jungleTile(cell, t.tile.value, px, py);
      if (t?.tile.case === "worker") {
        const w = t.tile.value;
        if (w.covers) el("rect", { x: px + 6, y: py + 6, width: CELL - 4, height: CELL - 4, rx: 4, fill: "#999", opacity: 0.6 }, cell);
        workerTile(cell, w.tile, w.seat, w.rotation, px, py);
      }
      if (target === "overbuild") el("rect", { x: px + 2, y: py + 2, width: CELL - 4, height: CELL - 4, class: "target-ring" }, cell);
      cell.addEventListener("click", (e) => view.onCell?.(x, y, e as MouseEvent));
      cell.addEventListener("mouseenter", () => view.onHover?.(x, y));
    }
  }
  for (const m of view.marked ?? []) {
    el("rect", { x: m.x * CELL + 1, y: m.y * CELL + 1, width: CELL - 2, height: CELL - 2, class: "marked" }, svg);
  }
  for (const temple of view.temples ?? []) {
    const g = el("g", { class: "majority" }, svg);
    const seats = temple.workers.map((n, s) => [n, s]).filter(([n]) => n > 0).sort((a, b) => b[0] - a[0]);
    seats.forEach(([n, s], i) => {
      const cx = temple.x * CELL + 10 + i * 15, cy = temple.y * CELL + 11;
      el("circle", { cx, cy, r: 7, fill: SEAT_COLOURS[s], stroke: "#fff", "stroke-width": 1.2 }, g);
      el("text", { x: cx, y: cy + 3.5, "text-anchor": "middle", "font-size": 10, fill: "#fff", "font-weight": 700 }, g, String(n));
    });
  }
  const ghost = view.ghost;
  if (ghost) {
    const g = workerTile(svg, ghost.tile, ghost.seat, ghost.rotation, ghost.x * CELL, ghost.y * CELL, CELL,
      ghost.legal ? "ghost" : "ghost illegal");
    g.style.pointerEvents = "none";
  }
}
