// What a human may do with the chosen tile, from the legal actions.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  actionsAt, fillCells, ghostRotation, handTiles, nextCell, nextRotation, rotationsAt, targetsOf,
} from "../src/placing";
import { overbuild, place, resolve } from "./helpers";

const legal = [
  place(0, 2, 1, 0, 1), place(0, 2, 1, 0, 3), place(0, 1, 1, 0, 0), place(0, 2, -1, 0, 0),
  overbuild(0, 2, 0, 1, 2), resolve(0, 1, 0),
];

test("the hand tiles offered are those some placement or overbuild uses, each once", () => {
  assert.deepEqual(handTiles(legal), [2, 1]);
  assert.deepEqual(handTiles([resolve(0, 1, 0)]), []);
});

test("the actions and rotations of a tile at a cell", () => {
  assert.equal(actionsAt(legal, 2, { x: 1, y: 0 }).length, 2);
  assert.deepEqual(rotationsAt(legal, 2, { x: 1, y: 0 }), [1, 3]);
  assert.deepEqual(rotationsAt(legal, 1, { x: 1, y: 0 }), [0]);
  assert.deepEqual(actionsAt(legal, 2, null), []);
  assert.deepEqual(actionsAt(legal, null, { x: 1, y: 0 }), []);
});

test("the tile is drawn at the chosen rotation where it may lie so, else at the next legal one", () => {
  const cell = { x: 1, y: 0 };
  assert.equal(ghostRotation(legal, 2, 1, cell), 1);
  assert.equal(ghostRotation(legal, 2, 2, cell), 3);
  assert.equal(ghostRotation(legal, 2, 0, cell), 1);
  assert.equal(ghostRotation(legal, 2, 2, { x: 5, y: 5 }), 2); // no legal way there: as chosen
  // R turns among the legal rotations there, and a quarter turn elsewhere
  assert.equal(nextRotation(legal, 2, 1, cell), 3);
  assert.equal(nextRotation(legal, 2, 3, cell), 1);
  assert.equal(nextRotation(legal, 2, 3, null), 0);
});

test("the targets of a tile say which cells take a placement and which an overbuild", () => {
  const targets = targetsOf(legal, 2);
  assert.deepEqual([...targets], [["1,0", "place"], ["-1,0", "place"], ["0,1", "overbuild"]]);
  assert.equal(targetsOf(legal, 3).size, 0);
});

test("the cells the ways of filling cover, each once", () => {
  const ways = [place(0, 2, 1, 0, 0, [[1, 2, 0], [4, 1, 1]]), place(0, 2, 1, 0, 0, [[4, 2, 0], [1, 1, 1]])];
  assert.deepEqual(fillCells(ways), [{ x: 2, y: 0 }, { x: 1, y: 1 }]);
});

test("the arrow keys go to the nearest target ahead, else one cell on", () => {
  const targets = ["3,0", "1,0", "0,-2", "-4,0"];
  assert.deepEqual(nextCell(targets, null, "ArrowRight"), { x: 3, y: 0 });
  assert.deepEqual(nextCell(targets, { x: 0, y: 0 }, "ArrowRight"), { x: 1, y: 0 });
  assert.deepEqual(nextCell(targets, { x: 1, y: 0 }, "ArrowRight"), { x: 3, y: 0 });
  assert.deepEqual(nextCell(targets, { x: 0, y: 0 }, "ArrowUp"), { x: 0, y: -2 });
  assert.deepEqual(nextCell(targets, { x: 3, y: 0 }, "ArrowRight"), { x: 4, y: 0 });
  assert.deepEqual(nextCell([], null, "ArrowLeft"), { x: 0, y: 0 });
});

test("a cell that takes no tile is explained by the page, in one sentence", async () => {
  const { Phase, PositionSchema, create } = await import("@cacaoai/client");
  const { whyNot } = await import("../src/placing");
  const position = create(PositionSchema, { players: 2, phase: Phase.TURN, toAct: 0, board: [
    { x: 0, y: 0, tile: { case: "jungle", value: 1 } },
    { x: 1, y: 0, tile: { case: "worker", value: { tile: 2, seat: 1, rotation: 0 } } },
    { x: 0, y: 1, tile: { case: "worker", value: { tile: 2, seat: 0, rotation: 0 } } },
  ] });
  assert.equal(whyNot(position, legal, 2, { x: 5, y: 5 }),
    "A worker tile cannot go on (5,5): it needs an empty cell beside a jungle tile (the cells shown in green).");
  assert.match(whyNot(position, legal, 2, { x: 0, y: 0 }), /^\(0,0\) holds a jungle tile/);
  assert.match(whyNot(position, legal, 2, { x: 1, y: 0 }), /only one of your own tiles, and the one on \(1,0\) is not/);
  assert.match(whyNot(position, legal, 2, { x: 0, y: 1 }), /cannot overbuild the tile on \(0,1\) now/);
});
