// A review as the page shows it: the sentence built from an explanation's parts (the
// service's wording), the marks of the classes, the graph's points and the way from
// mistake to mistake.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DecisionClass, DecisionReviewSchema, create } from "@cacaoai/client";
import { seatName } from "../src/names";
import { judged, markOf, nextMistake, reviewMarks, reviewPoints, tallies } from "../src/review";
import type { Judged } from "../src/review";
import { actionText, sentence } from "../src/sentence";
import { place, resolve, someRules } from "./helpers";

someRules();
const discard = (seat: number, tile: number) =>
  ({ ...place(seat, tile, 0, 0), kind: { case: "discard" as const, value: { tile } } }) as ReturnType<typeof place>;

test("a sentence names what the best line gains, as the service words it", () => {
  // the case of tests/test_review.py::test_a_sentence_names_what_the_line_gains
  const why = { seat: 0, line: [place(0, 2, 1, -2)], otherLine: [discard(0, 1)],
    parts: [{ name: "water", best: 2, other: -1 }, { name: "water_space", best: 4, other: 2 },
      { name: "sun", best: 0, other: 1 }, { name: "total", best: 20, other: 11 }],
    temples: [{ x: 1, y: -1, best: [6, 3], other: [3, 6] }] };
  assert.equal(sentence(why, seatName),
    "2101 at (1,-2) takes the majority of the temple at (1,-1) from yellow (+3 gold at the end) " +
    "and moves your water carrier to 4 instead of 2 (+3), +9 gold in all at the end");
});

test("a sentence keeps to three gains, says when only the total differs, and when nothing does", () => {
  const line = [resolve(0, 3, 1)], otherLine = [resolve(0, 1, 3)];
  const parts = [["sun", 2, 1], ["gold", 9, 7], ["cacao", 3, 1], ["plantations", 2, 0], ["total", 30, 27]]
    .map(([name, best, other]) => ({ name: name as string, best: best as number, other: other as number }));
  const many = sentence({ seat: 0, line, otherLine, parts, temples: [] }, seatName);
  assert.equal(many, "taking 3 gold and keeping 1 cacao leaves you 2 sun tokens instead of 1, leaves you 9 gold " +
    "instead of 7 and leaves you 3 cacao instead of 1, +3 gold in all at the end");
  const total = sentence({ seat: 0, line, otherLine, parts: [{ name: "total", best: 30, other: 29 }], temples: [] }, seatName);
  assert.equal(total, "taking 3 gold and keeping 1 cacao scores more than taking 1 gold and keeping 3 cacao, +1 gold in all at the end");
  assert.match(sentence({ seat: 0, line, otherLine, parts: [], temples: [] }, seatName), /scores as much as .* its gain is in the chances after them$/);
  // a temple where the line keeps another seat from gold, the mover's own award the same
  const kept = sentence({ seat: 1, line, otherLine, parts: [], temples: [{ x: 2, y: 0, best: [0, 3, 0], other: [6, 3, 0] }] }, seatName);
  assert.equal(kept, "taking 3 gold and keeping 1 cacao keeps red from gold at the temple at (2,0) (−6 for red)");
  assert.equal(actionText(discard(0, 1)), "discarding 1111");
});

test("the classes get chess's marks, and only the losing ones", () => {
  assert.deepEqual(["best", "good", "inaccuracy", "mistake", "blunder", "forced"].map((c) => markOf(c as Judged["cls"])),
    ["", "", "?!", "?", "??", ""]);
  const d = create(DecisionReviewSchema, { index: 4, seat: 1, classification: DecisionClass.MISTAKE, winBefore: 0.6,
    winAfter: 0.45, bestWin: 0.6, winLoss: 0.15, goldLoss: 2, accuracy: 50 });
  assert.equal(judged(d).cls, "mistake");
  assert.equal(judged(create(DecisionReviewSchema, { index: 5, forced: true })).cls, "forced");
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

test("each seat's tally: the mean accuracy and the counts of its judged decisions", () => {
  const [red, yellow] = tallies(decisions, 2);
  assert.equal(red.accuracy, 89);
  assert.deepEqual([red.counts.best, red.counts.inaccuracy, red.counts.blunder], [1, 1, 0]);
  assert.equal(yellow.accuracy, 24);
  assert.deepEqual([yellow.counts.blunder, yellow.counts.forced], [1, 1]);
  assert.equal(tallies([], 3)[2].accuracy, undefined);
});
