// The replay viewer: a record stepped through action by action, each position evaluated
// as it is shown, and the game's graph filled in the background.
import { Phase } from "@cacaoai/client";
import type { Evaluation, GameRecord } from "@cacaoai/client";
import { client, fromRecord } from "./api";
import { $, explain, say } from "./dom";
import { EVAL_ITERATIONS, cut, keep, settled } from "./record";
import { redraw } from "./redraw";
import { evaluate, fillGraph, showEvaluation } from "./searches";
import { verdictLine } from "./review";
import { closeReview, leavePuzzles, shownReview, state, stopAnalysis, stopFilling, stopThinking } from "./state";

/** The replay viewer on `record` at action `index`, with the evaluations already known. */
export async function openReplay(record: GameRecord, evals: Map<number, Evaluation>, index: number): Promise<void> {
  stopThinking();
  stopAnalysis();
  stopFilling();
  closeReview(); // a review belongs to the record it judges
  leavePuzzles();
  state.replay = { record, index, evals: new Map(evals), hash: "" };
  state.mode = "replay";
  $("setup").hidden = true;
  say(`replaying ${record.actions.length} actions; arrow keys step`);
  await replayGo(index);
  void fillGraph();
}

export function replayStep(step: number): void {
  const r = state.replay;
  if (!r) return;
  void replayGo(Math.max(0, Math.min(r.record.actions.length, r.index + step)));
}

/** The viewer at action `index`; in a review, the verdict of the move shown said above the
 *  board too (unless `verdict` is false: the message has news of its own). */
export async function replayGo(index: number, verdict = true): Promise<void> {
  const r = state.replay!;
  r.index = index;
  stopAnalysis();
  const record = cut(r.record, index);
  let reply;
  try {
    reply = await client.validateRecord({ source: fromRecord(record) });
  } catch (e) {
    explain(e);
    return;
  }
  if (r.index !== index || state.replay !== r) return;
  const position = reply.position!;
  Object.assign(r, { standing: reply.standing, result: reply.result, hash: reply.positionHash, position });
  const known = r.evals.get(index);
  const fits = known && settled(known) && (!state.forecast || !!known.forecast); // the overlay needs a forecast
  state.evaluation = fits ? { ev: known, hash: r.hash, seat: position.toAct ?? 0, seq: 0 } : null;
  redraw.page();
  const v = shownReview(); // a review's verdict of the move shown above the board too, as a practice's (not logged)
  if (v && verdict) say(verdictLine(index > 0 ? v.decisions.get(index - 1) : undefined, index, !!v.running), false, "", false);
  if (!state.evaluation && position.phase !== Phase.OVER) {
    const hash = r.hash;
    try {
      const ev = await evaluate(record, EVAL_ITERATIONS.replay);
      keep(r.evals, index, ev);
      if (state.replay === r && r.hash === hash) showEvaluation(ev, hash, position.toAct!, 0);
      redraw.graph();
    } catch (e) { explain(e); }
  }
}

/** The position after `index` actions, from a click on the game's graph: in the replay
 *  viewer, that action; at the end of a game, the replay viewer on it there. */
export function showMoment(index: number): void {
  const g = state.game;
  if (state.mode === "replay") void replayGo(index);
  else if (state.over && g) void openReplay(g.record, g.evals, index);
}
