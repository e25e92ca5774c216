// A review's classes and marks, and an explanation as one sentence in the service's
// words (the cases of tests/test_review.py), with the tiles named from the rules facts
// and the seats by colour.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ActionSchema, actionText, className, create, DecisionClass, DecisionReviewSchema, reviewMark, RulesFactsSchema,
  SEAT_NAMES, seatName, sentence,
} from "../src/index.js";
import type { Action } from "../src/index.js";

const rules = create(RulesFactsSchema, {
  workerTiles: [{ tile: 1, name: "1111", faces: [1, 1, 1, 1] }, { tile: 2, name: "2101", faces: [2, 1, 0, 1] }],
});
const place = (seat: number, tile: number, x: number, y: number): Action =>
  create(ActionSchema, { seat, kind: { case: "place", value: { tile, x, y } } });
const discard = (seat: number, tile: number): Action => create(ActionSchema, { seat, kind: { case: "discard", value: { tile } } });
const resolve = (seat: number, gold: number, cacao: number): Action =>
  create(ActionSchema, { seat, kind: { case: "resolve", value: { gold, cacao } } });

test("the seats are named by colour, as the rules, the page and the terminal name them", () => {
  assert.deepEqual(SEAT_NAMES, ["red", "yellow", "purple", "blue"]);
  assert.equal(seatName(1), "yellow");
  assert.equal(seatName(4), "seat 4");
});

test("a sentence names what the best line gains, as the service words it", () => {
  // the case of tests/test_review.py::test_a_sentence_names_what_the_line_gains
  const why = { seat: 0, line: [place(0, 2, 1, -2)], otherLine: [discard(0, 1)],
    parts: [{ name: "water", best: 2, other: -1 }, { name: "water_space", best: 4, other: 2 },
      { name: "sun", best: 0, other: 1 }, { name: "total", best: 20, other: 11 }],
    temples: [{ x: 1, y: -1, best: [6, 3], other: [3, 6] }] };
  assert.equal(sentence(why, { rules }),
    "2101 at (1,-2) takes the majority of the temple at (1,-1) from yellow (+3 gold at the end) " +
    "and moves your water carrier to 4 instead of 2 (+3), +9 gold in all at the end");
  assert.match(sentence(why, { rules, seatName: (s) => `seat ${s}` }), /from seat 1 /);
});

test("a sentence keeps to three gains, says when only the total differs, and when nothing does", () => {
  const line = [resolve(0, 3, 1)], otherLine = [resolve(0, 1, 3)];
  const parts = [["sun", 2, 1], ["gold", 9, 7], ["cacao", 3, 1], ["plantations", 2, 0], ["total", 30, 27]]
    .map(([name, best, other]) => ({ name: name as string, best: best as number, other: other as number }));
  assert.equal(sentence({ seat: 0, line, otherLine, parts, temples: [] }, { rules }),
    "taking 3 gold and keeping 1 cacao leaves you 2 sun tokens instead of 1, leaves you 9 gold " +
    "instead of 7 and leaves you 3 cacao instead of 1, +3 gold in all at the end");
  assert.equal(sentence({ seat: 0, line, otherLine, parts: [{ name: "total", best: 30, other: 29 }], temples: [] }, { rules }),
    "taking 3 gold and keeping 1 cacao scores more than taking 1 gold and keeping 3 cacao, +1 gold in all at the end");
  assert.equal(sentence({ seat: 0, line, otherLine, parts: [{ name: "total", best: 27, other: 30 }], temples: [] }, { rules }),
    "taking 3 gold and keeping 1 cacao scores 3 gold less than taking 1 gold and keeping 3 cacao along the " +
    "expected lines; its gain is in the chances after them");
  assert.match(sentence({ seat: 0, line, otherLine, parts: [], temples: [] }, { rules }),
    /scores as much as .* its gain is in the chances after them$/);
  // a temple where the line keeps another seat from gold, the mover's own award the same
  const kept = sentence({ seat: 1, line, otherLine, parts: [], temples: [{ x: 2, y: 0, best: [0, 3, 0], other: [6, 3, 0] }] }, { rules });
  assert.equal(kept, "taking 3 gold and keeping 1 cacao keeps red from gold at the temple at (2,0) (−6 for red)");
  assert.equal(actionText(discard(0, 1), rules), "discarding 1111");
});

test("a sentence speaks of what decides: the margin in 2 players, the leader and the place in 3-4", () => {
  // the cases of tests/test_explain_margin.py
  const why = (totals: number[], otherTotals: number[], parts: { name: string; best: number; other: number }[] = [],
               temples: { x: number; y: number; best: number[]; other: number[] }[] = []) =>
    ({ seat: 0, line: [place(0, 2, 1, -2)], otherLine: [discard(0, 1)], parts, temples, totals, otherTotals });
  const gains = why([20, 14], [11, 17], [{ name: "water", best: 2, other: -1 }, { name: "water_space", best: 4, other: 2 },
    { name: "total", best: 20, other: 11 }], [{ x: 1, y: -1, best: [6, 3], other: [3, 6] }]);
  assert.equal(sentence(gains, { rules }),
    "2101 at (1,-2) takes the majority of the temple at (1,-1) from yellow (+3 gold at the end) " +
    "and moves your water carrier to 4 instead of 2 (+3), +12 in the margin over yellow at the end");
  assert.equal(sentence(why([18, 10], [20, 16], [{ name: "total", best: 18, other: 20 }]), { rules }),
    "2101 at (1,-2) instead of discarding 1111: −2 gold for you but +4 in the margin over yellow at the end");
  assert.equal(sentence(why([15, 15], [16, 15], [{ name: "total", best: 15, other: 16 }]), { rules }),
    "2101 at (1,-2) instead of discarding 1111: −1 in the margin over yellow at the end; " +
    "its gain is in the chances after these lines");
  assert.equal(sentence(why([20, 22, 12], [16, 22, 18]), { rules }),
    "2101 at (1,-2) instead of discarding 1111: +4 against the leader at the end (second instead of third)");
  assert.equal(sentence(why([25, 19, 20, 3], [21, 19, 20, 3]), { rules }),
    "2101 at (1,-2) instead of discarding 1111: +4 against the leader at the end");
  assert.match(sentence(why([10, 19, 20, 3], [12, 19, 20, 3]), { rules }),
    /−2 against the leader at the end; its gain is in the chances after these lines$/);
});

test("a decision's class in words, and chess's marks on the losing ones only", () => {
  const of = (classification: DecisionClass, forced = false) => className(create(DecisionReviewSchema, { classification, forced }));
  assert.deepEqual([DecisionClass.BEST, DecisionClass.GOOD, DecisionClass.INACCURACY, DecisionClass.MISTAKE,
    DecisionClass.BLUNDER].map((c) => of(c)), ["best", "good", "inaccuracy", "mistake", "blunder"]);
  assert.equal(of(DecisionClass.UNSPECIFIED, true), "forced");
  assert.deepEqual((["best", "good", "inaccuracy", "mistake", "blunder", "forced"] as const).map(reviewMark),
    ["", "", "?!", "?", "??", ""]);
});
