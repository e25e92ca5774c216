// Records cut at an action, the evaluations kept of their positions, and the graph's points.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GameRecordSchema, GameResultSchema, create } from "@cacaoai/client";
import { graphPoints } from "../src/graph";
import { budget, cut, exactSeats, keep, populationText, seatLevels, settled } from "../src/record";
import { evaluation, place, resolve } from "./helpers";

test("a record cut at an action keeps the actions before it and drops the result", () => {
  const record = create(GameRecordSchema, { players: 2, actions: [place(0, 1, 1, 0), resolve(1, 2, 0), place(1, 2, 0, 1)],
    result: { winners: [1] } });
  const two = cut(record, 2);
  assert.equal(two.actions.length, 2);
  assert.equal(two.result, undefined);
  assert.equal(record.actions.length, 3); // the record itself is untouched
  assert.ok(record.result);
});

test("an evaluation is kept when it says more than the one kept", () => {
  const evals = new Map();
  keep(evals, 3, evaluation([0.5, 0.5], 1000));
  keep(evals, 3, evaluation([0.6, 0.4], 500));
  assert.equal(evals.get(3).iterations, 1000n);
  keep(evals, 3, evaluation([0.7, 0.3], 2000));
  assert.equal(evals.get(3).iterations, 2000n);
  keep(evals, 3, evaluation([], 5000)); // a single action: no win chances, never over some
  assert.equal(evals.get(3).seats.length, 2);
});

test("an evaluation is good enough for the graph with the move's iterations or a single action", () => {
  assert.equal(settled(undefined), false);
  assert.equal(settled(evaluation([0.5, 0.5], 1499)), false);
  assert.equal(settled(evaluation([0.5, 0.5], 1500)), true);
  assert.equal(settled(evaluation([], 0, "single-action")), true);
});

test("a solved evaluation (the endgame solver's, 0 iterations) is settled and no search replaces it", () => {
  const solved = { ...evaluation([1, 0], 0, "exact"), exact: true };
  assert.equal(settled(solved), true);
  const evals = new Map();
  keep(evals, 7, evaluation([0.8, 0.2], 1000));
  keep(evals, 7, solved);
  assert.equal(evals.get(7).stoppedBy, "exact");
  keep(evals, 7, evaluation([0.9, 0.1], 5000));
  assert.equal(evals.get(7).stoppedBy, "exact");
});

test("the seats an exact evaluation proves: both of two, the seat to act of three or four", () => {
  assert.deepEqual(exactSeats(evaluation([0.5, 0.5])), []);
  assert.deepEqual(exactSeats({ ...evaluation([1, 0], 0, "exact"), exact: true, toAct: 0 }), [0, 1]);
  assert.deepEqual(exactSeats({ ...evaluation([0.2, 0.3, 0.5], 300), exact: true, toAct: 2 }), [2]);
});

test("an AI seat's budget is its level or its time", () => {
  assert.deepEqual(budget("casual"), { case: "level", value: "casual" });
  const timed = budget("time:3");
  assert.equal(timed.case, "limits");
  assert.equal(Number((timed.value as { time: { seconds: bigint } }).time.seconds), 3);
});

test("the graph has a point per evaluation of a position in the record, and the winners share the end", () => {
  const evals = new Map([[0, evaluation([0.5, 0.5])], [2, evaluation([0.2, 0.8])], [9, evaluation([1, 0])],
    [1, evaluation([])]]);
  const result = create(GameResultSchema, { winners: [0, 1] });
  const points = graphPoints(evals, 2, 4, result);
  assert.deepEqual(points, [{ index: 0, win: [0.5, 0.5] }, { index: 2, win: [0.2, 0.8] }, { index: 4, win: [0.5, 0.5] }]);
  assert.deepEqual(graphPoints(new Map(), 3, 4, create(GameResultSchema, { winners: [2] })), [{ index: 4, win: [0, 0, 1] }]);
});

test("a search is told who plays: an AI seat's level, nobody known for a person or a time budget", () => {
  assert.deepEqual(seatLevels(["human", "casual", "time:2", "strong"]), ["", "casual", "", "strong"]);
  assert.equal(populationText("strong"), "if every seat plays as strong");
  assert.equal(populationText("strong vs casual"), "if one seat plays as strong and the others as casual");
  assert.equal(populationText(""), "");
});
