// Practising a review's mistakes, alone: the page's rules for it (drill.ts), what a
// practice does to the state's questions (which position, may the player place), and
// the practice controller's leaving and skipping, with no view loaded and no call to the service.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GameRecordSchema, Phase, PositionSchema, create, exercises } from "@cacaoai/client";
import type { DecisionReview } from "@cacaoai/client";
import { FORECAST_PLAYOUTS, afterTry, practiceSeat, progressText, reviewLimits, verdictText } from "../src/drill";
import { onTap } from "../src/input";
import { nextExercise, stopPractice, tryAction } from "../src/practising";
import { forecastPlayouts } from "../src/searches";
import {
  boardTargets, closeReview, currentHash, currentPosition, currentRecord, humanPosition, placing, state,
} from "../src/state";
import type { Practice, Review } from "../src/state";
import { humanTurn, place, recordRedraws } from "./helpers";

test("the seat practised is the game's human seat, else seat 0", () => {
  assert.equal(practiceSeat(["casual", "human"]), 1);
  assert.equal(practiceSeat(["human", "human"]), 0);
  assert.equal(practiceSeat(["casual", "casual"]), 0);
  assert.equal(practiceSeat(undefined), 0);
});

test("a try solves, or misses once and is tried again, and a second miss shows the best", () => {
  assert.deepEqual(afterTry(0, { solved: true }), { misses: 0, step: "solved" });
  assert.deepEqual(afterTry(0, { solved: false }), { misses: 1, step: "trying" });
  assert.deepEqual(afterTry(1, { solved: false }), { misses: 2, step: "shown" });
  assert.deepEqual(afterTry(1, { solved: true }), { misses: 1, step: "solved" });
});

test("progress, verdicts and the review's limits read as a player and the service take them", () => {
  assert.equal(progressText(1, 5), "2 of 5");
  assert.equal(verdictText({ solved: true, classification: "best", winLoss: 0 }, "solved"), "Solved: a best move.");
  assert.equal(verdictText({ solved: false, classification: "blunder", winLoss: 0.31 }, "trying"),
    "A blunder: it loses 31% of win chance against the best. Try once more.");
  assert.match(verdictText({ solved: false, classification: "inaccuracy", winLoss: 0.04 }, "shown"),
    /^An inaccuracy: .* The best move is shown on the board\.$/);
  assert.equal(reviewLimits(0), undefined);
  assert.equal(reviewLimits(2000)?.iterations, 2000n);
});

/** The page practising one exercise of seat 0 (decision 2 of a 2-player record), waiting for a try. */
function practising(): Practice {
  const tile = 1, legal = [place(0, tile, 1, 0), place(0, tile, 0, 1)];
  humanTurn(legal, tile);
  const record = create(GameRecordSchema, { players: 2, actions: [place(0, 1, 1, 0), place(1, 2, 0, 1), place(0, 2, 2, 0)] });
  const decisions = [{ index: 2, seat: 0, classification: 5, action: record.actions[2] },
    { index: 1, seat: 1, classification: 4, action: record.actions[1] }] as unknown as DecisionReview[];
  const list = exercises(record, decisions, [0]);
  const review: Review = { record, decisions: new Map(), total: 3, summary: null, running: null, stopped: false };
  const practice: Practice = { review, seat: 0, list, at: 0, hash: "p2", misses: 0, verdict: null, step: "trying",
    solved: 0, judging: null, position: create(PositionSchema, { players: 2, phase: Phase.TURN, toAct: 0 }) };
  Object.assign(state, { mode: "practice", review, practice, replay: null, game: null });
  return practice;
}

test("a practice shows its exercise's position and takes a tile as in play, but not while a try is judged", () => {
  const p = practising();
  assert.deepEqual(p.list.map((e) => e.index), [2]); // seat 0's blunder only
  assert.equal(currentPosition(), p.position);
  assert.equal(currentHash(), "p2");
  assert.equal(currentRecord()?.actions.length, 2); // the game up to the mistake
  assert.equal(humanPosition(), p.position);
  assert.ok(placing());
  assert.deepEqual([...boardTargets().keys()].sort(), ["0,1", "1,0"]);
  p.judging = new AbortController();
  assert.equal(humanPosition(), null);
  assert.ok(!placing());
  const asked = recordRedraws();
  onTap({ x: 1, y: 0 }, "touch"); // taken by no one: the try on its way
  assert.equal(state.selected, null);
  assert.deepEqual(asked, []);
  p.judging = null;
  p.step = "solved";
  assert.ok(!placing()); // solved: Next, not another try
  void tryAction(p.list[0].taken); // no second try of a solved exercise (and no call)
  assert.equal(p.judging, null);
});

test("leaving a practice, or skipping its last exercise, goes back to the replay viewer", () => {
  const p = practising();
  const asked = recordRedraws();
  stopPractice();
  assert.equal(state.practice, null);
  assert.equal(state.mode, "replay");
  assert.deepEqual(asked, ["fit", "page"]);
  practising();
  const judging = new AbortController();
  state.practice!.judging = judging;
  recordRedraws();
  // the message line, not drawn: every element a thing whose every member does nothing
  const nothing: any = new Proxy(() => nothing, { get: (_t, key) => (key === Symbol.toPrimitive ? () => 0 : nothing) });
  (globalThis as any).document = nothing;
  try {
    nextExercise(); // the last one: the practice ends with its count, the try on its way cancelled
  } finally {
    delete (globalThis as any).document;
  }
  assert.equal(state.message, "practice done: 0 of 1 solved");
  assert.ok(judging.signal.aborted);
  assert.equal(state.practice, null);
  assert.notEqual(p, state.practice);
  practising();
  closeReview(); // a new game or another record: the practice goes with its review
  assert.equal(state.practice, null);
  assert.equal(state.review, null);
  assert.equal(state.mode, "replay");
});

test("the evaluations ask for a forecast only while its overlay is on", () => {
  state.forecast = false;
  assert.equal(forecastPlayouts(), 0);
  state.forecast = true;
  assert.equal(forecastPlayouts(), FORECAST_PLAYOUTS);
  state.forecast = false;
});
