// The searches the page runs besides the AI's moves: a short evaluation of a position
// (the bar, the replay viewer, the graph), the evaluations the game's graph still needs,
// and a 3-second analysis on request.
import { Phase, durationFromMs } from "@cacaoai/client";
import type { Evaluation, GameRecord } from "@cacaoai/client";
import { client, fromRecord } from "./api";
import { explain } from "./dom";
import { FORECAST_PLAYOUTS } from "./drill";
import { EVAL_ITERATIONS, cut, keep, seatLevels, settled } from "./record";
import { redraw } from "./redraw";
import {
  currentHash, currentPosition, currentRecord, solving, state, stopAnalysis, stopFilling, visibleEvaluation,
} from "./state";

/** Candidates asked of a search: enough for the heat map; the list shows the first few. */
export const CANDIDATES = 30;

/** Shows an evaluation of the position `hash` (for `seat`, report `seq`). */
export function showEvaluation(ev: Evaluation, hash: string, seat: number, seq: number): void {
  state.evaluation = { ev, hash, seat, seq };
  redraw.evaluation();
  if (state.heat !== "off") redraw.board();
}

/** Who plays each seat of the game on the board, as a search request says it (the win
 *  chances then assume those players); none in the replay viewer, whose players are not known. */
export const levels = (): string[] => (state.mode === "play" && state.game ? seatLevels(state.game.seats) : []);

/** A short search (fixed seed and iterations) for the seat to act at the end of a record. */
export async function evaluate(record: GameRecord, iterations: number, signal?: AbortSignal): Promise<Evaluation> {
  const reply = await client.suggestAction({
    source: fromRecord(record), budget: { case: "limits", value: { iterations: BigInt(iterations) } },
    seed: 1n, maxCandidates: CANDIDATES, levels: levels(), forecast: forecastPlayouts(),
  }, { signal });
  return reply.evaluation!;
}

/** The forecast playouts a search asks for: some while the forecast overlay is on. */
export const forecastPlayouts = () => (state.forecast ? FORECAST_PLAYOUTS : 0);

/** The forecast overlay turned on or off: an evaluation on show without a forecast is
 *  asked again with one (the replay viewer's, or one the player sees while playing). */
export async function setForecast(on: boolean): Promise<void> {
  state.forecast = on;
  redraw.page();
  const shown = visibleEvaluation(), record = currentRecord(), position = currentPosition(), hash = currentHash();
  if (!on || state.analysis || !record || !position || position.phase === Phase.OVER || solving()) return;
  if (shown?.ev.forecast || (!shown && state.mode !== "replay")) return;
  state.quick?.abort();
  const controller = new AbortController();
  state.quick = controller;
  try {
    const ev = await evaluate(record, EVAL_ITERATIONS.replay, controller.signal);
    if (currentHash() === hash && !state.analysis) showEvaluation(ev, hash, position.toAct ?? 0, 0);
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.quick === controller) state.quick = null;
  redraw.evaluation();
}

/** The evaluation bar after each move (dropped when the position changes). */
export async function quickEvaluation(): Promise<void> {
  const g = state.game!;
  const hash = g.hash, index = g.record.actions.length, controller = new AbortController();
  state.quick = controller;
  redraw.page();
  try {
    const ev = await evaluate(g.record, EVAL_ITERATIONS.move, controller.signal);
    if (state.game === g && g.hash === hash) keep(g.evals, index, ev);
    if (state.game === g && g.hash === hash && !state.analysis) showEvaluation(ev, hash, g.position.toAct!, 0);
  } catch (e) { /* the bar keeps its last value */ }
  if (state.quick === controller) state.quick = null;
  redraw.evaluation();
}

/** Evaluates, one after the other, the positions the graph has no good evaluation of
 *  (in the replay viewer and at the end of a game), as the replay viewer evaluates. */
export async function fillGraph(): Promise<void> {
  stopFilling();
  const controller = new AbortController();
  state.filling = controller;
  const source = state.mode === "replay" ? state.replay : state.game;
  if (!source) return;
  const record = source.record, evals = source.evals, n = record.actions.length;
  const finished = !!(source.result ?? record.result);
  try {
    for (let i = 0; i <= n; i++) {
      if (controller.signal.aborted) return;
      if ((i === n && finished) || settled(evals.get(i))) continue;
      const ev = await evaluate(cut(record, i), EVAL_ITERATIONS.replay, controller.signal);
      if (controller.signal.aborted) return;
      keep(evals, i, ev);
      redraw.graph();
    }
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.filling === controller) state.filling = null;
  redraw.graph();
}

/** On demand: a 3-second streaming analysis for the seat to act (again: stops it). */
export async function analyse(): Promise<void> {
  if (state.analysis) { stopAnalysis(); redraw.page(); return; }
  const position = currentPosition(), record = currentRecord(), hash = currentHash();
  if (!position || !record || position.phase === Phase.OVER || solving()) return; // a practice or a puzzle is the player's own
  const seat = position.toAct!;
  state.quick?.abort(); // the analysis says more
  state.quick = null;
  const controller = new AbortController();
  state.analysis = controller;
  redraw.page();
  try {
    const reports = client.analyzePosition({
      source: fromRecord(record), budget: { case: "limits", value: { time: durationFromMs(3000) } }, seed: 1n,
      maxCandidates: CANDIDATES, reportInterval: durationFromMs(250), levels: levels(), forecast: forecastPlayouts(),
    }, { signal: controller.signal });
    for await (const m of reports) if (m.evaluation) showEvaluation(m.evaluation, hash, seat, m.sequence);
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.analysis === controller) state.analysis = null;
  redraw.page();
}
