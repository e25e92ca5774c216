// The Puzzles view, alone: its rules (trainer.ts: what the page keeps and reads back, the
// filters, the verdicts and the rating's change in words), what a puzzle does to the state's
// questions (which position, which seat's view, may the player place, which answer is
// shown), and the controller refusing a try when none is due, with no view loaded and no
// call to the service.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CheckPuzzleResponseSchema, Phase, PositionSchema, PuzzleSchema, create, firstProgress } from "@cacaoai/client";
import { onTap } from "../src/input";
import { tryPuzzle } from "../src/puzzling";
import {
  boardTargets, currentHash, currentPosition, currentRecord, humanPosition, leavePuzzles, placing, shownAnswer, solving,
  solvingSeat, state,
} from "../src/state";
import type { Puzzles } from "../src/state";
import {
  ANY, SEEN_KEPT, filtersText, puzzleVerdict, ratingChange, readFilters, readProgress, readSeen, remember, withRange,
} from "../src/trainer";
import { humanTurn, place, recordRedraws } from "./helpers";

test("what the page keeps is read back, and anything else reads as a first visit", () => {
  const kept = { rating: 1316, streak: 3, bestStreak: 5, solved: 9, played: 14 };
  assert.deepEqual(readProgress(JSON.stringify(kept)), kept);
  for (const bad of [null, "", "{", "[]", '{"rating": "high"}', JSON.stringify({ ...kept, streak: -1 })]) {
    assert.deepEqual(readProgress(bad), firstProgress(), String(bad));
  }
  assert.deepEqual(readSeen('["a", 3, "b"]'), ["a", "b"]);
  assert.deepEqual(readSeen("nonsense"), []);
  assert.deepEqual(readFilters('{"theme": "water", "min": 1000, "max": "x"}'), { theme: "water", min: 1000, max: null });
  assert.deepEqual(readFilters(null), ANY);
});

test("a puzzle seen is remembered once, the oldest forgotten first", () => {
  assert.deepEqual(remember(["a", "b"], "a"), ["b", "a"]);
  const many = [...Array(SEEN_KEPT).keys()].map(String);
  const after = remember(many, "new");
  assert.equal(after.length, SEEN_KEPT);
  assert.deepEqual([after[0], after.at(-1)], ["1", "new"]);
});

test("a rating range stays a range, and the filters read as words", () => {
  assert.deepEqual(withRange(ANY, 1400, 1000), { theme: "", min: 1400, max: 1400 });
  assert.deepEqual(withRange(ANY, null, 1000), { theme: "", min: null, max: 1000 });
  assert.equal(filtersText({ theme: "water", min: 1000, max: 1600 }), "water, rated 1000 to 1600");
  assert.equal(filtersText({ theme: "", min: 1800, max: null }), "rated 1800 or more");
  assert.equal(filtersText(ANY), "any puzzle");
});

test("verdicts and the rating's change read as a player takes them", () => {
  assert.equal(puzzleVerdict(true, 0, "solved"), "Correct!");
  assert.equal(puzzleVerdict(true, 1, "solved"), "Correct, at the second try.");
  assert.equal(puzzleVerdict(false, 1, "trying"), "Not this one. Try once more.");
  assert.equal(puzzleVerdict(false, 2, "shown"), "Not this one either: the solution is shown on the board.");
  assert.equal(puzzleVerdict(false, 0, "shown"), "The solution is shown on the board."); // given up
  assert.equal(ratingChange(1200, 1216), "1200 → 1216 (+16)");
  assert.equal(ratingChange(1200, 1184), "1200 → 1184 (−16)");
  assert.equal(ratingChange(1200, 1200), "1200 → 1200 (±0)");
});

/** The page at a puzzle of seat 1 (3 players), waiting for a try. */
function solvingPuzzle(): Puzzles {
  const tile = 1, legal = [place(1, tile, 1, 0), place(1, tile, 0, 1)];
  humanTurn(legal, tile);
  const position = create(PositionSchema, { players: 3, phase: Phase.TURN, toAct: 1, view: 1 });
  const puzzle = create(PuzzleSchema, { id: "3p-x", players: 3, seat: 1, position, themes: ["water"], rating: 1400 });
  const z: Puzzles = { filters: { ...ANY }, themes: [], drawing: false, puzzle, hash: "z1", matching: 3, misses: 0,
    verdict: null, step: "trying", judging: null, progress: firstProgress(), before: null, seen: ["3p-x"] };
  Object.assign(state, { mode: "puzzles", puzzles: z, game: null, replay: null, review: null, practice: null });
  return z;
}

test("a puzzle shows its seat's view and takes a tile as in play, but not while a try is judged", () => {
  const z = solvingPuzzle();
  assert.ok(solving());
  assert.equal(solvingSeat(), 1);
  assert.equal(currentPosition(), z.puzzle!.position);
  assert.equal(currentHash(), "z1");
  assert.equal(currentRecord(), null); // no record reaches a puzzle: no search is sent
  assert.equal(humanPosition(), z.puzzle!.position);
  assert.ok(placing());
  assert.deepEqual([...boardTargets().keys()].sort(), ["0,1", "1,0"]);
  assert.equal(shownAnswer(), null);
  z.judging = new AbortController();
  assert.equal(humanPosition(), null);
  const asked = recordRedraws();
  onTap({ x: 1, y: 0 }, "touch");
  assert.equal(state.selected, null);
  assert.deepEqual(asked, []);
  z.judging = null;
  z.drawing = true; // the next one on its way
  assert.ok(!placing());
});

test("a puzzle over shows its solution on the board and takes no other try", () => {
  const z = solvingPuzzle();
  const solution = place(1, 1, 0, 1);
  z.verdict = create(CheckPuzzleResponseSchema, { correct: false, solutions: [solution], sentence: "why", rating: 1400 });
  assert.equal(shownAnswer(), null); // one more try first
  z.step = "shown";
  assert.deepEqual(shownAnswer(), { action: solution, seat: 1 });
  assert.ok(!placing());
  void tryPuzzle(place(1, 1, 1, 0)); // no try of a puzzle that is over (and no call)
  assert.equal(z.judging, null);
  z.step = "solved";
  assert.deepEqual(shownAnswer(), { action: solution, seat: 1 });
});

test("leaving the puzzles goes back to the game, or to the setup, and cancels a try", () => {
  const z = solvingPuzzle();
  const judging = new AbortController();
  z.judging = judging;
  leavePuzzles();
  assert.ok(judging.signal.aborted);
  assert.equal(state.puzzles, null);
  assert.equal(state.mode, "setup");
  assert.deepEqual(state.legal, []);
  assert.ok(!solving());
});
