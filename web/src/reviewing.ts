// The review of a game in the replay viewer: ReviewGame streamed from the service (each
// decision judged from its mover's view, then a summary), cancelled when the player
// stops or leaves it (a new game, another record, playing on). Its panel is reviewpanel.ts.
import { client, fromRecord } from "./api";
import { explain, say } from "./dom";
import { reviewLimits } from "./drill";
import { redraw } from "./redraw";
import { openReplay, replayGo } from "./replay";
import { closeReview, shownReview, state, stopFilling, stopReview } from "./state";
import type { Review } from "./state";

/** Reviews the record in the replay viewer, decision after decision, as the reports come
 *  (from its start when the viewer shows its end). */
export async function startReview(): Promise<void> {
  const r = state.replay;
  if (state.mode !== "replay" || !r) return;
  closeReview();
  stopFilling(); // the review's searches say more than the graph's evaluations
  const running = new AbortController();
  const review: Review = { record: r.record, decisions: new Map(), total: 0, summary: null, running, stopped: false };
  state.review = review;
  redraw.page();
  // at the record's end "next mistake" has nowhere to go: the review starts from the first move
  if (r.index > 0 && r.index === r.record.actions.length) void replayGo(0);
  const iterations = state.reviewIterations;
  try {
    const reports = client.reviewGame({
      source: fromRecord(r.record), seed: BigInt(state.reviewSeed), limits: reviewLimits(iterations),
      decisions: state.reviewDecisions, // a practice judges its tries at this budget and seed too
    }, { signal: running.signal });
    for await (const m of reports) {
      if (state.review !== review) break;
      review.total = m.decisions;
      if (m.kind.case === "decision") review.decisions.set(m.kind.value.index, m.kind.value);
      else if (m.kind.case === "summary") review.summary = m.kind.value;
      redraw.review();
      redraw.graph();
    }
    if (state.review === review && review.summary) say(`reviewed ${review.decisions.size} decisions`);
  } catch (e) {
    if (!running.signal.aborted) explain(e);
  }
  if (review.running === running) review.running = null;
  if (state.review === review) redraw.page();
}

/** The replay bar's review button: a review of the record shown, else stops the one
 *  running, else closes it. */
export function toggleReview(): void {
  const now = shownReview();
  if (!now) void startReview();
  else if (now.running) { stopReview(); redraw.page(); }
  else { closeReview(); redraw.page(); }
}

/** After a game: the replay viewer on it, at its start (where "next mistake" leads to the
 *  first one), and its review. */
export async function reviewGame(): Promise<void> {
  const g = state.game;
  if (!g) return;
  await openReplay(g.record, g.evals, 0);
  await startReview();
}
