// Records and the evaluations kept of their positions: a record cut at an action, which
// evaluation of a position to keep, when one is good enough for the graph, the search
// budget of a seat, and who plays each seat as the service's win chances take it.
import { GameRecordSchema, clone, durationFromMs } from "@cacaoai/client";
import type { Evaluation, GameRecord } from "@cacaoai/client";

/** Iterations of the evaluation of each position (the bar after each move, the replay viewer, the graph). */
export const EVAL_ITERATIONS = { move: 1500, replay: 2000 };

/** A record cut after its first `actions` actions (no result). */
export function cut(record: GameRecord, actions: number): GameRecord {
  const out = clone(GameRecordSchema, record);
  out.actions = out.actions.slice(0, actions);
  out.result = undefined;
  return out;
}

/** An evaluation the endgame solver proved whole (2 players: every figure exact, no tree, 0 iterations). */
export const solved = (ev: Evaluation) => ev.stoppedBy === "exact";

/** The seats whose figures the endgame solver proved: every seat with 2 players, the seat to
 *  act with 3-4 (what it gets if all the other seats play together against it); none when the
 *  evaluation is not exact. */
export function exactSeats(ev: Evaluation): number[] {
  if (!ev.exact) return [];
  return ev.seats.length === 2 || ev.toAct === undefined ? ev.seats.map((s) => s.seat) : [ev.toAct];
}

/** Keeps the evaluation of the position after `index` actions, if it says more than the one kept
 *  (a solved one says the most: no search replaces it). */
export function keep(evals: Map<number, Evaluation>, index: number, ev: Evaluation): void {
  const old = evals.get(index);
  if (!old || !old.seats.length
      || (ev.seats.length && (solved(ev) || (!solved(old) && ev.iterations >= old.iterations)))) evals.set(index, ev);
}

/** An evaluation good enough for the graph and the replay viewer. */
export const settled = (ev: Evaluation | undefined) =>
  !!ev && (ev.stoppedBy === "single-action" || solved(ev) || ev.iterations >= BigInt(EVAL_ITERATIONS.move));

/** The search budget of an AI seat: a level ("casual") or a time ("time:2", seconds). */
export function budget(kind: string) {
  return kind.startsWith("time:")
    ? { case: "limits" as const, value: { time: durationFromMs(Number(kind.slice(5)) * 1000) } }
    : { case: "level" as const, value: kind };
}

/** Each seat's level, as a search request names who plays (`levels`): an AI seat's level,
 *  "" for a person or an AI on a time budget (a player the service has no map for). */
export const seatLevels = (seats: string[]): string[] =>
  seats.map((kind) => (kind === "human" || kind.startsWith("time:") ? "" : kind));

/** Whose play a win chance assumes (an evaluation's `population`), in words: "if every seat
 *  plays as strong", "if one seat plays as strong and the others as casual"; "" for none. */
export function populationText(population: string): string {
  if (!population) return "";
  const [one, others] = population.split(" vs ");
  return others ? `if one seat plays as ${one} and the others as ${others}` : `if every seat plays as ${one}`;
}
