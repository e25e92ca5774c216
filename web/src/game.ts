// Names, the cacao-record/1 file form, observations and descriptions of actions.
// Only data is translated here: legality, resolutions and results come from the service.
import type { Action, BoardTile, GameRecord, JungleTile, Position, WorkerTile } from "./api";

export const workerName = (t: WorkerTile) => t.replace("WORKER_TILE_", "");
export const jungleName = (t: JungleTile) => t.replace("JUNGLE_TILE_", "").toLowerCase().replace("_", "-");
const workerEnum = (name: string) => "WORKER_TILE_" + name;
const jungleEnum = (name: string) => "JUNGLE_TILE_" + name.toUpperCase().replace("-", "_");

/** Workers printed on the sides N, E, S, W of each worker tile at rotation 0 (the tiles' faces). */
export const SIDES: Record<string, number[]> = {
  "1111": [1, 1, 1, 1], "2101": [2, 1, 0, 1], "3001": [3, 0, 0, 1], "3100": [3, 1, 0, 0],
};
export const STEPS = [[0, -1], [1, 0], [0, 1], [-1, 0]]; // N E S W; y grows downwards
/** Workers of a placed tile facing direction d (0..3). */
export function workersFacing(tile: WorkerTile, rotation: number, d: number): number {
  return SIDES[workerName(tile)][(d - rotation + 4) % 4];
}

/** A proto GameRecord as the cacao-record/1 file. */
export function recordToFile(r: GameRecord): object {
  const out: any = {
    format: "cacao-record/1", players: r.players, first_player: r.firstPlayer ?? 0,
    worker_piles: r.workerPiles.map((p) => p.tiles.map(workerName)),
    jungle_deck: r.jungleDeck.map(jungleName),
    actions: (r.actions ?? []).map(actionToFile),
  };
  if (r.result) {
    const seats = r.result.seats;
    out.result = { gold: seats.map((s) => s.gold ?? 0), cacao: seats.map((s) => s.cacao ?? 0),
      winners: r.result.winners ?? [] };
  }
  return out;
}

function actionToFile(a: Action): object {
  const seat = a.seat ?? 0;
  if (a.place) {
    const p = a.place;
    return { type: "place", seat, tile: workerName(p.tile), x: p.x ?? 0, y: p.y ?? 0, rot: p.rotation ?? 0,
      fills: (p.fills ?? []).map((f) => ({ x: f.x ?? 0, y: f.y ?? 0, tile: jungleName(f.tile) })) };
  }
  if (a.overbuild) {
    const o = a.overbuild;
    return { type: "overbuild", seat, tile: workerName(o.tile), x: o.x ?? 0, y: o.y ?? 0, rot: o.rotation ?? 0 };
  }
  if (a.discard) return { type: "discard", seat, tile: workerName(a.discard.tile) };
  return { type: "resolve", seat, gold: a.resolve?.gold ?? 0, cacao: a.resolve?.cacao ?? 0 };
}

/** A cacao-record/1 file as a proto GameRecord (the service checks it). */
export function recordFromFile(f: any): GameRecord {
  return {
    players: f.players, firstPlayer: f.first_player,
    workerPiles: (f.worker_piles ?? []).map((p: string[]) => ({ tiles: p.map(workerEnum) })),
    jungleDeck: (f.jungle_deck ?? []).map(jungleEnum),
    actions: (f.actions ?? []).map((a: any): Action => {
      if (a.type === "place") {
        return { seat: a.seat, place: { tile: workerEnum(a.tile), x: a.x, y: a.y, rotation: a.rot,
          fills: (a.fills ?? []).map((x: any) => ({ x: x.x, y: x.y, tile: jungleEnum(x.tile) })) } };
      }
      if (a.type === "overbuild") return { seat: a.seat, overbuild: { tile: workerEnum(a.tile), x: a.x, y: a.y, rotation: a.rot } };
      if (a.type === "discard") return { seat: a.seat, discard: { tile: workerEnum(a.tile) } };
      return { seat: a.seat, resolve: { gold: a.gold, cacao: a.cacao } };
    }),
    result: f.result ? {
      seats: (f.result.gold ?? []).map((gold: number, seat: number) => ({ seat, gold, cacao: f.result.cacao?.[seat] })),
      winners: f.result.winners,
    } : undefined,
  };
}

/** What `seat` sees of a complete position: the deck order, the piles and other hands left out. */
export function observation(p: Position, seat: number): Position {
  return {
    ...p, view: seat, jungleDeck: undefined,
    seats: p.seats.map((s, i) => ({ ...s, pile: undefined, hand: i === seat ? s.hand : undefined })),
  };
}

/** A short text for an action: "2101 at (0,-1) turned 1, market-3 to (-1,-1)". */
export function describe(a: Action): string {
  if (a.place || a.overbuild) {
    const p = (a.place ?? a.overbuild)!;
    const fills = (a.place?.fills ?? []).map((f) => `${jungleName(f.tile)} to (${f.x ?? 0},${f.y ?? 0})`);
    return `${a.overbuild ? "overbuild " : ""}${workerName(p.tile)} at (${p.x ?? 0},${p.y ?? 0})` +
      (p.rotation ? ` turned ${p.rotation}` : "") + (fills.length ? `, ${fills.join(", ")}` : "");
  }
  if (a.discard) return `discard ${workerName(a.discard.tile)}`;
  return `take ${a.resolve?.gold ?? 0} gold, keep ${a.resolve?.cacao ?? 0} cacao`;
}

/** The same action, whichever fields at their defaults the two forms leave out. */
export const sameAction = (a: Action, b: Action) => (a.seat ?? 0) === (b.seat ?? 0) && describe(a) === describe(b);

/** Workers per seat facing each temple (the majorities scored at the end). */
export function temples(p: Position): { x: number; y: number; workers: number[] }[] {
  const cells = new Map<string, BoardTile>();
  for (const t of p.board) cells.set(`${t.x ?? 0},${t.y ?? 0}`, t);
  const out = [];
  for (const t of p.board) {
    if (t.jungle !== "JUNGLE_TILE_TEMPLE") continue;
    const x = t.x ?? 0, y = t.y ?? 0, workers = new Array(p.players).fill(0);
    STEPS.forEach(([dx, dy], d) => {
      const w = cells.get(`${x + dx},${y + dy}`)?.worker;
      if (w) workers[w.seat ?? 0] += workersFacing(w.tile, w.rotation ?? 0, (d + 2) % 4);
    });
    out.push({ x, y, workers });
  }
  return out;
}
