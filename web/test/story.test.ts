// What happened: the last turn step by step, and why a seat chooses during another's turn.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Phase, PositionSchema, create } from "@cacaoai/client";
import { lastTurn, turnStory, whyChoose } from "../src/story";
import { place, resolve, someRules } from "./helpers";

const name = (s: number) => ["red (you)", "yellow (AI)"][s];

test("the last turn is its placement and the results chosen after it", () => {
  const actions = [place(0, 1, 1, 0), resolve(0, 1, 0), place(1, 2, 0, 1, 0, [[4, -1, 1]]), resolve(1, 0, 4)];
  assert.deepEqual(lastTurn(actions), actions.slice(2));
  assert.deepEqual(lastTurn([]), []);
});

test("a seat asked to choose during another's turn is told whose tile and which fill activated its workers", () => {
  someRules();
  const actions = [place(0, 1, 1, 0), place(1, 2, 0, 1, 0, [[4, -1, 1]]), resolve(1, 0, 4)];
  const position = create(PositionSchema, { players: 2, mover: 1, phase: Phase.RESOLVE, toAct: 0,
    pending: [{ seat: 0 }] });
  assert.deepEqual(turnStory(actions, position, name), [
    "yellow (AI): 2101 at (0,1), market-3 to (-1,1)",
    "yellow (AI): take 0 gold, keep 4 cacao",
    "red (you) chooses a result during yellow (AI)'s turn: the market-3 on (-1,1) that yellow (AI) put beside"
      + " its tile on (0,1) activated red (you)'s workers.",
  ]);
});

test("the mover choosing its own result, and the seats that choose after it", () => {
  someRules();
  const position = create(PositionSchema, { players: 3, mover: 0, phase: Phase.RESOLVE, toAct: 0,
    pending: [{ seat: 0 }, { seat: 1 }] });
  assert.equal(whyChoose([place(0, 1, 1, 0)], position, name),
    "red (you) chooses the result of the placement; then yellow (AI).");
  const placing = create(PositionSchema, { players: 2, mover: 0, phase: Phase.TURN, toAct: 0 });
  assert.equal(whyChoose([place(0, 1, 1, 0)], placing, name), "");
  assert.deepEqual(turnStory([place(1, 1, 1, 0)], placing, name), ["yellow (AI): 1111 at (1,0)"]);
});
