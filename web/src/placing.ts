// What a human may do with the chosen tile, worked out from the legal actions the
// service sent: the hand tiles that fit somewhere, the cells they may go to, the
// rotations at a cell, the way of filling closed cells, and the keyboard's next cell.
import type { Action, Position, WorkerTile } from "@cacaoai/client";
import type { Cell } from "./board";
import { fillsOf, placement, workerName } from "./game";

export type Target = "place" | "overbuild";
export const cellKey = (c: Cell) => `${c.x},${c.y}`;

/** The hand tiles that some legal placement or overbuild uses (in the order of the actions). */
export function handTiles(legal: Action[]): WorkerTile[] {
  const out: WorkerTile[] = [];
  for (const a of legal) {
    const t = placement(a)?.tile;
    if (t !== undefined && !out.includes(t)) out.push(t);
  }
  return out;
}

/** The legal actions of `tile` at `cell` (any rotation). */
export function actionsAt(legal: Action[], tile: WorkerTile | null, cell: Cell | null): Action[] {
  if (!cell || tile === null) return [];
  return legal.filter((a) => {
    const p = placement(a);
    return p && p.tile === tile && p.x === cell.x && p.y === cell.y;
  });
}

/** The rotations `tile` may lie at on `cell`, sorted. */
export function rotationsAt(legal: Action[], tile: WorkerTile | null, cell: Cell | null): number[] {
  const out = actionsAt(legal, tile, cell).map((a) => placement(a)!.rotation);
  return [...new Set(out)].sort();
}

/** The rotation the tile is drawn at on `cell`: the one chosen, else the next legal one there. */
export function ghostRotation(legal: Action[], tile: WorkerTile | null, rotation: number, cell: Cell | null): number {
  const rots = rotationsAt(legal, tile, cell);
  if (!rots.length || rots.includes(rotation)) return rotation;
  return rots.find((r) => r > rotation) ?? rots[0];
}

/** The next rotation R gives: the next legal one on `cell`, else a quarter turn. */
export function nextRotation(legal: Action[], tile: WorkerTile | null, rotation: number, cell: Cell | null): number {
  const rots = rotationsAt(legal, tile, cell);
  if (!rots.length) return (rotation + 1) % 4;
  const current = ghostRotation(legal, tile, rotation, cell);
  return rots[(rots.indexOf(current) + 1) % rots.length];
}

/** The cells `tile` may go to, each with how (a placement, or an overbuild of an own tile). */
export function targetsOf(legal: Action[], tile: WorkerTile | null): Map<string, Target> {
  const targets = new Map<string, Target>();
  for (const a of legal) {
    const q = placement(a);
    if (q && q.tile === tile) targets.set(cellKey(q), a.kind.case === "place" ? "place" : "overbuild");
  }
  return targets;
}

/** The cells the ways of filling in `choices` cover (each once). */
export function fillCells(choices: Action[]): Cell[] {
  const cells = new Map<string, Cell>();
  for (const a of choices) for (const f of fillsOf(a)) cells.set(cellKey(f), { x: f.x, y: f.y });
  return [...cells.values()];
}

/** The keyboard's next cell from `from` for an arrow key: the nearest target in that
 *  direction, else the next cell; the first target when there is no cell yet. */
export function nextCell(targets: Iterable<string>, from: Cell | null, key: string): Cell {
  const [dx, dy] = ({ ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] } as Record<string, number[]>)[key] ?? [0, 0];
  const cells = [...targets].map((k) => k.split(",").map(Number));
  if (!from) return cells.length ? { x: cells[0][0], y: cells[0][1] } : { x: 0, y: 0 };
  const ahead = cells.filter(([x, y]) => (x - from.x) * dx + (y - from.y) * dy > 0)
    .sort((a, b) => Math.hypot(a[0] - from.x, a[1] - from.y) - Math.hypot(b[0] - from.x, b[1] - from.y));
  return ahead.length ? { x: ahead[0][0], y: ahead[0][1] } : { x: from.x + dx, y: from.y + dy };
}

/** Why the chosen tile may not go on `cell`, in one sentence (the page knows every legal
 *  action, so a cell that is not green is explained without asking the service). */
export function whyNot(position: Position, legal: Action[], tile: WorkerTile | null, cell: Cell): string {
  const at = `(${cell.x},${cell.y})`;
  if (tile === null) return "First choose one of the results offered.";
  const here = position.board.find((t) => t.x === cell.x && t.y === cell.y);
  if (here?.tile.case === "jungle") return `${at} holds a jungle tile: a worker tile goes on an empty cell beside one (the cells shown in green).`;
  if (here?.tile.case === "worker") {
    const own = here.tile.value.seat === position.toAct;
    if (!own) return `You can overbuild only one of your own tiles, and the one on ${at} is not.`;
    if (here.tile.value.covers) return `The tile on ${at} was itself laid by an overbuild, so it cannot be covered.`;
    return `You cannot overbuild the tile on ${at} now: that needs a sun token, an empty jungle deck and an empty display.`;
  }
  const near = [[0, -1], [1, 0], [0, 1], [-1, 0]].some(([dx, dy]) =>
    position.board.some((t) => t.x === cell.x + dx && t.y === cell.y + dy && t.tile.case === "jungle"));
  if (!near) return `A worker tile cannot go on ${at}: it needs an empty cell beside a jungle tile (the cells shown in green).`;
  if (!legal.some((a) => placement(a)?.tile === tile)) return `Your ${workerName(tile)} fits nowhere: choose another tile.`;
  return `Your ${workerName(tile)} cannot go on ${at}: the cells shown in green take it.`;
}
