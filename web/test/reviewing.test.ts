// The review controller and the searches' display, alone: what they do to the state and
// which redraw they ask for (recorded), with no view loaded and no call to the service.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GameRecordSchema, create } from "@cacaoai/client";
import { toggleReview } from "../src/reviewing";
import { showEvaluation } from "../src/searches";
import { state } from "../src/state";
import type { Review } from "../src/state";
import { evaluation, humanTurn, recordRedraws } from "./helpers";

function reviewing(): { review: Review; running: AbortController } {
  humanTurn([], null);
  const record = create(GameRecordSchema, { players: 2 }), running = new AbortController();
  const review: Review = { record, decisions: new Map(), total: 4, summary: null, running, stopped: false };
  Object.assign(state, { mode: "replay", review, replay: { record, index: 0, evals: new Map(), hash: "r0" } });
  return { review, running };
}

test("the review button stops a running review (its reports stay), then closes it", () => {
  const { review, running } = reviewing();
  const asked = recordRedraws();
  toggleReview();
  assert.ok(running.signal.aborted);
  assert.equal(state.review, review);
  assert.equal(review.stopped, true);
  toggleReview();
  assert.equal(state.review, null);
  assert.deepEqual(asked, ["page", "page"]);
});

test("an evaluation shown redraws its panel, and the board only when the heat map is on", () => {
  humanTurn([], null);
  const asked = recordRedraws();
  const ev = evaluation([0.6, 0.4]);
  state.heat = "visits";
  showEvaluation(ev, "h0", 0, 3);
  assert.deepEqual(state.evaluation, { ev, hash: "h0", seat: 0, seq: 3 });
  state.heat = "off";
  showEvaluation(ev, "h0", 0, 4);
  assert.deepEqual(asked, ["evaluation", "board", "evaluation"]);
});
