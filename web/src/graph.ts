// The game's swing as a picture: each seat's win probability after every action
// (the evaluation of each position, and the result at the end), one line per seat in
// its colour, dash and shape; a click on the graph picks an action.
import type { Evaluation, GameResult } from "@cacaoai/client";
import { SEAT_COLOURS, el, seatMark } from "./board";
import { seatName } from "./names";

/** The win chance of each seat (by seat number) at the position after `index` actions
 *  (a seat left out: no point of its line there). */
export interface GraphPoint { index: number; win: number[] }
/** A mark on a seat's line at the position after `index` actions ("?!", "?", "??" of a
 *  review; `cls` styles it). */
export interface GraphMark { index: number; seat: number; win: number; mark: string; cls: string }

/** The graph's points: each kept evaluation, and the result at the end (the winners share 1). */
export function graphPoints(evals: Map<number, Evaluation>, players: number, n: number, result?: GameResult): GraphPoint[] {
  const points: GraphPoint[] = [];
  for (const [index, ev] of evals) {
    if (!ev.seats.length || index > n) continue;
    const win = Array(players).fill(0);
    for (const s of ev.seats) win[s.seat] = s.winProbability;
    points.push({ index, win });
  }
  if (result) points.push({ index: n, win: [...Array(players).keys()].map((s) => (result.winners.includes(s) ? 1 / result.winners.length : 0)) });
  return points;
}

const DASHES = ["", "7 3", "2 2.5", "8 3 2 3"];
const H = 150, LEFT = 36, RIGHT = 10, TOP = 8, BOTTOM = 22;

/** Draws the graph into `box` (an SVG is made there): `actions` is the number of
 *  actions of the record, `current` the action shown (a vertical line), `onPick` is
 *  called with the index clicked, `marks` are drawn over the lines. */
export function drawGraph(box: HTMLElement, points: GraphPoint[], actions: number, players: number,
                          current: number | null, onPick: (index: number) => void, marks: GraphMark[] = []): void {
  const W = Math.max(240, box.clientWidth || 320); // one unit a pixel: the text keeps its size
  box.replaceChildren();
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "graph", role: "group",
    "aria-label": `win probability per seat over ${actions} actions; click an action to see it` }) as SVGSVGElement;
  box.appendChild(svg);
  const n = Math.max(actions, 1);
  const px = (i: number) => LEFT + (i / n) * (W - LEFT - RIGHT);
  const py = (p: number) => TOP + (1 - p) * (H - TOP - BOTTOM);
  const axes = el("g", { class: "axes" }, svg);
  for (const p of [0, 0.5, 1]) {
    el("line", { x1: LEFT, x2: W - RIGHT, y1: py(p), y2: py(p), class: p === 0.5 ? "mid" : "grid" }, axes);
    el("text", { x: LEFT - 4, y: py(p) + 3.5, "text-anchor": "end" }, axes, `${p * 100}%`);
  }
  const step = actions > 60 ? 20 : actions > 24 ? 10 : 5;
  const end = `${actions} actions`, room = end.length * 5.6 + 8;
  for (let i = 0; i < actions; i += step) {
    if (px(i) + 8 < W - RIGHT - room) el("text", { x: px(i), y: H - 8, "text-anchor": "middle" }, axes, String(i));
  }
  el("text", { x: W - RIGHT, y: H - 8, "text-anchor": "end", class: "axis-name" }, axes, end);
  const sorted = [...points].sort((a, b) => a.index - b.index);
  for (let s = 0; s < players; s++) {
    const line = sorted.filter((p) => p.win[s] !== undefined);
    const g = el("g", { class: "seat-line", "data-seat": s }, svg);
    el("polyline", { points: line.map((p) => `${px(p.index).toFixed(1)},${py(p.win[s]).toFixed(1)}`).join(" "),
      fill: "none", stroke: SEAT_COLOURS[s], "stroke-width": 2.2, "stroke-dasharray": DASHES[s], "stroke-linejoin": "round" }, g);
    const every = Math.max(1, Math.ceil(line.length / 24)); // shapes along the line, not on every point
    line.forEach((p, k) => {
      if (k % every === 0 || k === line.length - 1) seatMark(g, s, px(p.index), py(p.win[s]), 2.6, { "stroke-width": 0.5 });
    });
  }
  if (current !== null) el("line", { x1: px(current), x2: px(current), y1: TOP, y2: H - BOTTOM, class: "current" }, svg);
  const marked = el("g", { class: "marks" }, svg); // over the line of the action shown
  for (const m of marks) {
    const g = el("g", { class: `mark ${m.cls}`, "data-index": m.index, "data-seat": m.seat }, marked);
    el("circle", { cx: px(m.index), cy: py(m.win), r: 6.5 }, g);
    el("text", { x: px(m.index), y: py(m.win) + 3.5, "text-anchor": "middle" }, g, m.mark);
  }
  // one column per action, to click (and to hover, for the numbers)
  const hits = el("g", { class: "hits" }, svg);
  const byIndex = new Map<number, (number | undefined)[]>(); // every seat's point at an index, together
  for (const p of sorted) {
    const win = byIndex.get(p.index) ?? [];
    p.win.forEach((w, s) => { if (w !== undefined) win[s] = w; });
    byIndex.set(p.index, win);
  }
  const width = (W - LEFT - RIGHT) / n;
  for (let i = 0; i <= actions; i++) {
    const p = byIndex.get(i);
    const r = el("rect", { x: px(i) - width / 2, y: TOP, width, height: H - TOP - BOTTOM, class: "hit", "data-index": i }, hits);
    const what = p ? p.map((w, s) => (w === undefined ? "" : `${seatName(s)} ${Math.round(w * 100)}%`)).filter(Boolean).join(", ")
      : "not evaluated yet";
    el("title", {}, r, `${i === 0 ? "the start" : `after ${i} action${i > 1 ? "s" : ""}`}: ${what}`);
    r.addEventListener("click", () => onPick(i));
  }
}
