// The replay viewer: a record stepped through action by action, each position evaluated
// as it is shown, the game's graph filled in the background, and play going on from
// the action shown.
import { Phase } from "@cacaoai/client";
import type { Evaluation, GameRecord } from "@cacaoai/client";
import { client, fromRecord } from "./api";
import { $, explain, say } from "./dom";
import { advance } from "./play";
import { renderGraph } from "./panels";
import { EVAL_ITERATIONS, cut, keep, settled } from "./record";
import { render } from "./render";
import { closeReview } from "./reviewing";
import { evaluate, showEvaluation, stopAnalysis, stopFilling, stopThinking } from "./searches";
import { state } from "./state";

/** The replay viewer on `record` at action `index`, with the evaluations already known. */
export async function openReplay(record: GameRecord, evals: Map<number, Evaluation>, index: number): Promise<void> {
  stopThinking();
  stopAnalysis();
  stopFilling();
  closeReview(); // a review belongs to the record it judges
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

export async function replayGo(index: number): Promise<void> {
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
  state.evaluation = known && settled(known) ? { ev: known, hash: r.hash, seat: position.toAct ?? 0, seq: 0 } : null;
  render();
  if (!state.evaluation && position.phase !== Phase.OVER) {
    const hash = r.hash;
    try {
      const ev = await evaluate(record, EVAL_ITERATIONS.replay);
      keep(r.evals, index, ev);
      if (state.replay === r && r.hash === hash) showEvaluation(ev, hash, position.toAct!, 0);
      renderGraph();
    } catch (e) { explain(e); }
  }
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
      renderGraph();
    }
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.filling === controller) state.filling = null;
  renderGraph();
}

/** Play goes on from the action shown, with the seats as the setup dialog has them. */
export function playFromReplay(): void {
  const r = state.replay;
  if (!r || !r.position) return;
  stopFilling();
  closeReview();
  const record = cut(r.record, r.index);
  const seats = [...Array(record.players).keys()].map((s) =>
    $<HTMLSelectElement>(`seat-${s}`).value);
  const evals = new Map([...r.evals].filter(([k]) => k <= r.index));
  state.game = { record, position: r.position, hash: r.hash, seats, seed: 1, standing: r.standing, evals };
  state.mode = "play";
  state.paused = false;
  say(`playing on from action ${r.index}; seats: ${seats.join(", ")}`);
  advance().catch(explain);
}
