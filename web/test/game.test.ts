// Short texts for actions, from the tiles' names the service gives.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describe, signed } from "../src/game";
import { SEAT_NAMES, seatName } from "../src/names"; // the client's
import { overbuild, place, resolve, someRules } from "./helpers";

test("an action in a few words, with the tiles' names in records", () => {
  someRules();
  assert.equal(describe(place(0, 2, 0, -1, 1, [[4, -1, -1]])), "2101 at (0,-1) turned 1, market-3 to (-1,-1)");
  assert.equal(describe(overbuild(1, 1, 2, 2)), "overbuild 1111 at (2,2)");
  assert.equal(describe(resolve(1, 4, 0)), "take 4 gold, keep 0 cacao");
});

test("a signed number of gold", () => {
  assert.deepEqual([signed(4), signed(-10), signed(0)], ["+4", "−10", "0"]);
});

test("the seats are named by colour, as the rules name them", () => {
  assert.deepEqual(SEAT_NAMES, ["red", "yellow", "purple", "blue"]);
  assert.equal(seatName(1), "yellow");
  assert.equal(seatName(4), "seat 4");
});
