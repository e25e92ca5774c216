// The board's input controller, alone: it changes the state and asks for a redraw through
// the function it is given (here, a list of what was asked), never drawing itself.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cancelChoice, chooseTile, commit, onTap, preview, rotate } from "../src/input";
import { state } from "../src/state";
import { humanTurn, place, recordRedraws } from "./helpers";

// tile 2 at (1,0) two ways round; at (3,0), rotation 0, closing (4,0) with either display tile
const legal = [place(0, 2, 1, 0, 1), place(0, 2, 1, 0, 3),
  place(0, 2, 3, 0, 0, [[1, 4, 0]]), place(0, 2, 3, 0, 0, [[4, 4, 0]])];

test("rotating turns the tile among its legal rotations at the focused cell, and redraws the page", () => {
  humanTurn(legal, 2);
  const asked = recordRedraws();
  state.hover = { x: 1, y: 0 };
  state.rotation = 1;
  rotate();
  assert.equal(state.rotation, 3);
  rotate();
  assert.equal(state.rotation, 1);
  assert.deepEqual(asked, ["page", "page"]);
});

test("a finger's first tap chooses the cell, and nothing is played", () => {
  humanTurn(legal, 2);
  const asked = recordRedraws();
  onTap({ x: 1, y: 0 }, "touch");
  assert.deepEqual(state.selected, { x: 1, y: 0 });
  assert.equal(state.busy, false);
  assert.deepEqual(asked, ["page"]);
});

test("no tap counts while a move is on its way or the AI thinks", () => {
  humanTurn(legal, 2);
  const asked = recordRedraws();
  state.busy = true;
  onTap({ x: 1, y: 0 }, "touch");
  state.busy = false;
  state.thinking = new AbortController();
  onTap({ x: 1, y: 0 }, "touch");
  assert.equal(state.selected, null);
  assert.deepEqual(asked, []);
});

test("a placement that closes cells asks which display tile goes where; a tap there previews the next way", () => {
  humanTurn(legal, 2);
  const asked = recordRedraws();
  state.selected = { x: 3, y: 0 };
  commit({ x: 3, y: 0 });
  assert.deepEqual(state.choices, legal.slice(2));
  assert.deepEqual([state.choice, state.selected], [0, null]);
  onTap({ x: 4, y: 0 }, "mouse"); // the cell being filled
  assert.equal(state.choice, 1);
  onTap({ x: 4, y: 0 }, "mouse");
  assert.equal(state.choice, 0);
  onTap({ x: 9, y: 9 }, "mouse"); // elsewhere: nothing
  preview(1);
  assert.equal(state.choice, 1);
  cancelChoice();
  assert.equal(state.choices, null);
  assert.deepEqual(asked, ["page", "board", "board", "board", "page"]);
});

test("choosing a hand tile starts it at rotation 0", () => {
  humanTurn(legal, 1);
  const asked = recordRedraws();
  state.rotation = 3;
  chooseTile(2);
  assert.deepEqual([state.tile, state.rotation], [2, 0]);
  assert.deepEqual(asked, ["page"]);
});
