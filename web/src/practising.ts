// Practising a review's mistakes (lichess's "Learn from your mistakes"): after a review,
// the player is put before each inaccuracy, mistake and blunder of a seat in turn, sees
// the position from that seat's view only, and places a tile as in play. Each try is
// judged by the review's own search (the client's judgeTry: ReviewGame of that one
// decision, at the review's budget and seed). Its panel is practicepanel.ts.
import { exercises, judgeTry } from "@cacaoai/client";
import type { Action } from "@cacaoai/client";
import { client, fromRecord } from "./api";
import { explain, say } from "./dom";
import { afterTry, progressText, reviewLimits, verdictText } from "./drill";
import { handTiles } from "./placing";
import { redraw } from "./redraw";
import { replayGo } from "./replay";
import { leavePractice, shownReview, state, stopAnalysis, stopFilling } from "./state";
import type { Practice } from "./state";

/** Practises the mistakes of `seat` in the review shown (none: say so). */
export async function startPractice(seat: number): Promise<void> {
  const review = shownReview();
  if (!review || review.running) return;
  const list = exercises(review.record, review.decisions.values(), [seat]);
  if (!list.length) { say(`No inaccuracy, mistake or blunder of that seat to practise.`); return; }
  stopAnalysis();
  stopFilling();
  state.practice = { review, seat, list, at: 0, hash: "", misses: 0, verdict: null, step: "trying", solved: 0, judging: null };
  state.mode = "practice";
  state.evaluation = null;
  await showExercise(0);
}

/** Exercise `at` of the practice: its position and the seat's legal actions there. */
async function showExercise(at: number): Promise<void> {
  const p = state.practice!;
  Object.assign(p, { at, misses: 0, verdict: null, step: "trying", position: undefined, hash: "" });
  state.legal = [];
  state.choices = null;
  state.selected = null;
  const exercise = p.list[at];
  redraw.page();
  try {
    const [valid, legal] = await Promise.all([
      client.validateRecord({ source: fromRecord(exercise.record) }),
      client.listLegalActions({ source: fromRecord(exercise.record) }),
    ]);
    if (state.practice !== p || p.at !== at) return;
    Object.assign(p, { position: valid.position, hash: valid.positionHash, standing: legal.standing ?? valid.standing });
    state.legal = legal.actions;
    const tiles = handTiles(state.legal);
    state.tile = tiles[0] ?? null;
    state.rotation = 0;
    redraw.fit();
    say(`practice ${progressText(at, p.list.length)}: find a better move than the one played`);
  } catch (e) {
    explain(e);
  }
  redraw.page();
}

/** The player's try at the exercise shown: judged, then solved, missed or answered. */
export async function tryAction(action: Action): Promise<void> {
  const p = state.practice;
  if (!p || p.step !== "trying" || p.judging) return;
  const exercise = p.list[p.at], at = p.at;
  const judging = new AbortController();
  p.judging = judging;
  state.choices = null;
  state.selected = null;
  redraw.page();
  try {
    const verdict = await judgeTry(client, exercise, action, reviewLimits(state.reviewIterations),
      BigInt(state.reviewSeed), { signal: judging.signal });
    if (state.practice !== p || p.at !== at) return;
    const next = afterTry(p.misses, verdict);
    Object.assign(p, next, { verdict });
    if (next.step === "solved") p.solved++;
    say(verdictText(verdict, next.step)); // above the board too: on a phone the panel is below it
  } catch (e) {
    if (!judging.signal.aborted) explain(e);
  }
  if (p.judging === judging) p.judging = null;
  redraw.page();
}

/** The next exercise (a skip too); after the last, the practice ends. */
export function nextExercise(): void {
  const p = state.practice;
  if (!p) return;
  p.judging?.abort();
  p.judging = null;
  if (p.at + 1 < p.list.length) { void showExercise(p.at + 1); return; }
  say(`practice done: ${p.solved} of ${p.list.length} solved`);
  endPractice(p, false); // the message keeps the count, not the review's verdict of the mistake
}

/** Leaves the practice: the replay viewer and the review again. */
export function stopPractice(): void {
  const p = state.practice;
  if (p) endPractice(p);
}

/** Leaves the practice for the review, at the mistake practised last (`verdict`: its verdict said). */
function endPractice(p: Practice, verdict = true): void {
  const index = p.list[p.at]?.index;
  leavePractice();
  redraw.fit();
  redraw.page();
  if (state.replay && index !== undefined) void replayGo(index + 1, verdict); // the mistake, in the review
}
