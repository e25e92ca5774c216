// The page's state and its questions, alone: no view and no controller is loaded.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GameRecordSchema, create } from "@cacaoai/client";
import {
  boardTargets, closeReview, currentHash, currentRecord, ghostAt, placing, shownReview, state, stopAnalysis,
  stopReview, stopThinking,
} from "../src/state";
import type { Review } from "../src/state";
import { humanTurn, overbuild, place, resolve } from "./helpers";

const legal = [place(0, 2, 1, 0, 1), place(0, 2, 1, 0, 3), overbuild(0, 2, 0, 1, 2), place(0, 1, -1, 0, 0)];

test("a human places on their turn with a tile chosen, and not while a move is on its way", () => {
  humanTurn(legal, 2);
  assert.equal(placing(), true);
  state.busy = true;
  assert.equal(placing(), false);
  humanTurn(legal, null);
  assert.equal(placing(), false);
  humanTurn(legal, 2);
  state.game!.seats = ["casual", "human"]; // seat 0, to act, is an AI
  assert.equal(placing(), false);
});

test("the chosen tile's targets, none while a fill choice is open", () => {
  humanTurn(legal, 2);
  assert.deepEqual([...boardTargets()], [["1,0", "place"], ["0,1", "overbuild"]]);
  state.tile = 1;
  assert.deepEqual([...boardTargets().keys()], ["-1,0"]);
  state.choices = [legal[3]];
  assert.equal(boardTargets().size, 0);
});

test("the ghost lies at the chosen rotation where it may, else at the next legal one, on the focused cell", () => {
  humanTurn(legal, 2);
  state.rotation = 2;
  state.hover = { x: 1, y: 0 };
  assert.equal(ghostAt(), 3);
  state.selected = { x: 5, y: 5 }; // the cell chosen wins over the one under the mouse
  assert.equal(ghostAt(), 2);
  assert.equal(ghostAt({ x: 1, y: 0 }), 3);
});

test("the replay viewer shows its record cut at the action shown, with its own position hash", () => {
  humanTurn([], null);
  const record = create(GameRecordSchema, { players: 2, actions: [resolve(0, 1, 0), resolve(1, 0, 1), resolve(0, 2, 0)] });
  state.replay = { record, index: 2, evals: new Map(), hash: "r2" };
  assert.equal(currentHash(), "h0");
  assert.equal(currentRecord(), state.game!.record);
  state.mode = "replay";
  assert.equal(currentHash(), "r2");
  assert.equal(currentRecord()!.actions.length, 2);
  assert.equal(record.actions.length, 3); // the record itself is kept whole
});

test("a review shows only on the record it judges; stopping keeps its reports, closing drops it", () => {
  humanTurn([], null);
  const record = create(GameRecordSchema, { players: 2 });
  const running = new AbortController();
  const review: Review = { record, decisions: new Map(), total: 3, summary: null, running, stopped: false };
  state.review = review;
  state.replay = { record, index: 0, evals: new Map(), hash: "" };
  assert.equal(shownReview(), null); // not in the replay viewer
  state.mode = "replay";
  assert.equal(shownReview(), review);
  state.replay = { record: create(GameRecordSchema, { players: 2 }), index: 0, evals: new Map(), hash: "" };
  assert.equal(shownReview(), null); // another record
  stopReview();
  assert.ok(running.signal.aborted);
  assert.equal(state.review, review);
  assert.deepEqual([review.running, review.stopped], [null, true]);
  closeReview();
  assert.equal(state.review, null);
});

test("stopping the searches aborts each and forgets it", () => {
  const thinking = new AbortController(), analysis = new AbortController(), quick = new AbortController();
  Object.assign(state, { thinking, analysis, quick });
  stopThinking();
  stopAnalysis(); // the evaluation bar's search too
  assert.ok(thinking.signal.aborted && analysis.signal.aborted && quick.signal.aborted);
  assert.deepEqual([state.thinking, state.analysis, state.quick], [null, null, null]);
});
