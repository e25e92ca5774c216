// A review as the page shows it: the marks of the classes, the graph's points, each
// seat's tally and the way from mistake to mistake (the sentences are the client's:
// clients/typescript/test/review.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { DecisionClass, DecisionReviewSchema, create } from "@cacaoai/client";
import {
  STEP_HINT, gameAccuracy, judged, markOf, nextMistake, reviewMarks, reviewPoints, stakes, tallies, verdictLine,
} from "../src/review";
import type { Judged } from "../src/review";
import { resolve } from "./helpers";

test("the classes get chess's marks, and only the losing ones", () => {
  assert.deepEqual(["best", "good", "inaccuracy", "mistake", "blunder", "forced"].map((c) => markOf(c as Judged["cls"])),
    ["", "", "?!", "?", "??", ""]);
  const d = create(DecisionReviewSchema, { index: 4, seat: 1, classification: DecisionClass.MISTAKE, winBefore: 0.6,
    winAfter: 0.45, bestWin: 0.6, winLoss: 0.15, goldLoss: 2, accuracy: 50 });
  assert.equal(judged(d).cls, "mistake");
  assert.equal(judged(d).exact, false);
  assert.equal(judged(create(DecisionReviewSchema, { index: 5, forced: true })).cls, "forced");
  // the endgame solver proved both actions' values: the page says the loss is exact
  assert.equal(judged(create(DecisionReviewSchema, { index: 6, classification: DecisionClass.BLUNDER, exact: true })).exact, true);
});

const decisions: Judged[] = [
  { index: 0, seat: 0, cls: "best", winBefore: 0.5, winAfter: 0.52, winLoss: 0, goldLoss: 0, accuracy: 100 },
  { index: 1, seat: 1, cls: "blunder", winBefore: 0.48, winAfter: 0.2, winLoss: 0.3, goldLoss: 6, accuracy: 24 },
  { index: 2, seat: 1, cls: "forced", winLoss: 0, goldLoss: 0 },
  { index: 3, seat: 0, cls: "inaccuracy", winBefore: 0.8, winAfter: 0.74, winLoss: 0.06, goldLoss: 1, accuracy: 78 },
];

test("the graph has the mover's chance before and after each judged decision, and a mark on each loss", () => {
  const points = reviewPoints(decisions, 2);
  assert.deepEqual(points.map((p) => [p.index, p.win.findIndex((w) => w !== undefined), p.win.find((w) => w !== undefined)]),
    [[0, 0, 0.5], [1, 0, 0.52], [1, 1, 0.48], [2, 1, 0.2], [3, 0, 0.8], [4, 0, 0.74]]);
  assert.deepEqual(reviewMarks(decisions), [
    { index: 2, seat: 1, win: 0.2, mark: "??", cls: "blunder" }, { index: 4, seat: 0, win: 0.74, mark: "?!", cls: "inaccuracy" }]);
});

test("next mistake steps from the position shown to the one after each losing decision", () => {
  assert.equal(nextMistake(decisions, 0, 1), 2);
  assert.equal(nextMistake(decisions, 2, 1), 4);
  assert.equal(nextMistake(decisions, 4, 1), null);
  assert.equal(nextMistake(decisions, 4, -1), 2);
  assert.equal(nextMistake(decisions, 2, -1), null);
});

test("each seat's tally: the accuracy weighted by the stakes and the counts of its judged decisions", () => {
  const [red, yellow] = tallies(decisions, 2);
  // 100 at an even game (weight 1), 78 at a win chance of 0.8 (weight 4 * 0.8 * 0.2 = 0.64)
  assert.ok(Math.abs(red.accuracy! - (100 + 78 * 0.64) / 1.64) < 1e-9);
  assert.deepEqual([red.counts.best, red.counts.inaccuracy, red.counts.blunder], [1, 1, 0]);
  assert.ok(Math.abs(yellow.accuracy! - 24) < 1e-9);      // one judged decision: its own accuracy
  assert.deepEqual([yellow.counts.blunder, yellow.counts.forced], [1, 1]);
  assert.equal(tallies([], 3)[2].accuracy, undefined);
  const decided = [{ ...decisions[0], winBefore: 1, accuracy: 90 }, { ...decisions[0], winBefore: 0, accuracy: 70 }];
  assert.equal(gameAccuracy(decided, 2), 80);           // every decision in a decided game: the plain mean
  assert.equal(stakes(1 / 3, 3), 1);
});

test("the move shown is said in one line above the board: who, its class and mark, what it lost, the best", () => {
  const mistake = create(DecisionReviewSchema, { index: 6, seat: 1, classification: DecisionClass.MISTAKE,
    action: resolve(1, 12, 1), bestAction: resolve(1, 9, 2), winLoss: 0.134 });
  assert.equal(verdictLine(mistake, 7, false), "Action 7, yellow: a mistake (?): it loses 13% of win chance " +
    "against the best. Best: take 9 gold, keep 2 cacao.");
  const inaccuracy = create(DecisionReviewSchema, { ...mistake, classification: DecisionClass.INACCURACY, winLoss: 0.05 });
  assert.match(verdictLine(inaccuracy, 7, false), /^Action 7, yellow: an inaccuracy \(\?!\): it loses 5% /);
  const best = create(DecisionReviewSchema, { index: 0, seat: 0, classification: DecisionClass.BEST,
    action: resolve(0, 9, 2), bestAction: resolve(0, 9, 2) });
  assert.equal(verdictLine(best, 1, false), "Action 1, red: a best move, the AI's choice too.");
  assert.equal(verdictLine(create(DecisionReviewSchema, { index: 2, seat: 0, forced: true }), 3, false),
    "Action 3, red: the only move.");
  // before the first move, and at a move the review has not judged
  assert.equal(verdictLine(undefined, 0, true), STEP_HINT);
  assert.equal(verdictLine(undefined, 4, true), "Action 4 is not reviewed yet.");
  assert.equal(verdictLine(undefined, 4, false), "Action 4 was not reviewed.");
});
