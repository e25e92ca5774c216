// Names and faces of the tiles, read from the service's rules facts (GetServerInfo),
// and short texts for actions. Legality, resolutions, scores and the record's file
// form all come from the service.
import { ActionSchema, equals } from "@cacaoai/client";
import type { Action, Action_Overbuild, Action_Place, Fill, JungleTile, RulesFacts, WorkerTile } from "@cacaoai/client";

let rules: RulesFacts | null = null;

/** The rules facts of the server the page plays on (GetServerInfo.rules). */
export function setRules(facts: RulesFacts): void {
  rules = facts;
}
export const haveRules = () => rules !== null;
/** The tiles' names, for the client's sentences (`sentence(e, { rules: tileFacts() })`). */
export const tileFacts = (): Pick<RulesFacts, "workerTiles"> => rules ?? { workerTiles: [] };
export const waterTrack = () => rules?.waterTrack ?? [];
export const maxCacao = () => rules?.maxCacao ?? 0;
export const maxSun = () => rules?.maxSun ?? 0;

/** "2101": a worker tile's name in records. */
export const workerName = (t: WorkerTile) => rules?.workerTiles.find((f) => f.tile === t)?.name ?? `worker ${t}`;
/** "market-3": a jungle tile's name in records. */
export const jungleName = (t: JungleTile) => rules?.jungleTiles.find((f) => f.tile === t)?.name ?? `jungle ${t}`;
/** Workers on the sides N, E, S, W of a worker tile at rotation 0. */
export const faces = (t: WorkerTile): number[] => rules?.workerTiles.find((f) => f.tile === t)?.faces ?? [0, 0, 0, 0];

/** The tile placement of a place or overbuild action (undefined for the others). */
export function placement(a: Action): Action_Place | Action_Overbuild | undefined {
  return a.kind.case === "place" || a.kind.case === "overbuild" ? a.kind.value : undefined;
}

/** The display tiles a place action puts on the cells it closes (none for the others). */
export const fillsOf = (a: Action): Fill[] => (a.kind.case === "place" ? a.kind.value.fills : []);

/** A short text for an action: "2101 at (0,-1) turned 1, market-3 to (-1,-1)". */
export function describe(a: Action): string {
  const k = a.kind;
  if (k.case === "place" || k.case === "overbuild") {
    const p = k.value;
    const fills = k.case === "place" ? k.value.fills.map((f) => `${jungleName(f.tile)} to (${f.x},${f.y})`) : [];
    return `${k.case === "overbuild" ? "overbuild " : ""}${workerName(p.tile)} at (${p.x},${p.y})` +
      (p.rotation ? ` turned ${p.rotation}` : "") + (fills.length ? `, ${fills.join(", ")}` : "");
  }
  if (k.case === "discard") return `discard ${workerName(k.value.tile)}`;
  return `take ${k.value?.gold ?? 0} gold, keep ${k.value?.cacao ?? 0} cacao`;
}

/** The same action (both as the service sent them). */
export const sameAction = (a: Action, b: Action) => equals(ActionSchema, a, b);

/** "+4", "−10": a signed number of gold. */
export const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");
