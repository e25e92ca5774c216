// Solving puzzles (lichess's puzzles, for Cacao): the service draws a position from one
// seat's view where one move is clearly best (GetPuzzle, by theme and rating, past the
// puzzles seen), the player places a tile as in play, and the service judges the try
// (CheckPuzzle). Two tries, then the solution with why; "Show the solution" gives up (a
// miss). The player's puzzle rating, streak, the puzzles seen and the filters are kept in
// localStorage. Its panel is puzzlepanel.ts; its rules are trainer.ts's.
import { Code, ConnectError, afterPuzzle, drawPuzzle } from "@cacaoai/client";
import type { Action } from "@cacaoai/client";
import { client } from "./api";
import { $, explain, say } from "./dom";
import { afterTry } from "./drill";
import { seatName } from "./names";
import { handTiles } from "./placing";
import { advance } from "./play";
import { redraw } from "./redraw";
import { showSetup } from "./setup";
import {
  closeReview, leavePuzzles, state, stopAnalysis, stopFilling, stopThinking,
} from "./state";
import type { Puzzles } from "./state";
import { KEYS, filtersText, puzzleVerdict, readFilters, readProgress, readSeen, remember } from "./trainer";
import type { Filters } from "./trainer";

/** Opens the Puzzles view (a game goes on when it is left) and draws a puzzle. */
export async function startPuzzles(): Promise<void> {
  if (state.mode === "puzzles") return;
  stopThinking();
  stopAnalysis();
  stopFilling();
  closeReview();
  $("setup").hidden = true;
  state.puzzles = {
    filters: readFilters(localStorage.getItem(KEYS.filters)), themes: [], drawing: false, hash: "", matching: 0,
    misses: 0, verdict: null, step: "trying", judging: null, before: null,
    progress: readProgress(localStorage.getItem(KEYS.progress)), seen: readSeen(localStorage.getItem(KEYS.seen)),
  };
  state.mode = "puzzles";
  state.evaluation = null;
  await nextPuzzle();
}

/** The next puzzle that fits the filters (the one shown is left, solved or not). */
export async function nextPuzzle(): Promise<void> {
  const z = state.puzzles;
  if (!z || z.drawing) return;
  z.judging?.abort();
  Object.assign(z, { drawing: true, judging: null, misses: 0, verdict: null, step: "trying", before: null });
  state.legal = [];
  state.choices = null;
  state.selected = null;
  redraw.page();
  const f = z.filters;
  try {
    const seed = state.puzzleSeed === null ? undefined : BigInt(state.puzzleSeed);
    const { reply, startedOver } = await drawPuzzle(client, {
      theme: f.theme, minRating: f.min ?? undefined, maxRating: f.max ?? undefined, seed }, z.seen);
    const puzzle = reply.puzzle!;
    const legal = await client.listLegalActions({ source: { case: "position", value: puzzle.position! } });
    if (state.puzzles !== z) return;
    z.seen = remember(startedOver ? [] : z.seen, puzzle.id);
    localStorage.setItem(KEYS.seen, JSON.stringify(z.seen));
    Object.assign(z, { puzzle, hash: legal.positionHash, standing: legal.standing, matching: reply.matching,
      themes: reply.themes });
    state.legal = legal.actions;
    state.tile = handTiles(state.legal)[0] ?? null;
    state.rotation = 0;
    redraw.fit();
    say(`${startedOver ? "You have seen every puzzle that fits: they come again. " : ""}` +
      `Puzzle rated ${puzzle.rating} (${puzzle.themes.join(", ")}): find the best move for ${seatName(puzzle.seat)}.`);
  } catch (e) {
    if (state.puzzles !== z) return;
    z.puzzle = undefined;
    if (ConnectError.from(e).code === Code.NotFound) say(`No puzzle fits ${filtersText(f)}: choose other filters.`, true);
    else explain(e);
  }
  z.drawing = false;
  redraw.page();
}

/** The player's try at the puzzle shown: judged, then solved, missed once or answered. */
export async function tryPuzzle(action: Action): Promise<void> {
  const z = state.puzzles;
  if (!z?.puzzle || z.step !== "trying" || z.judging) return;
  await judge(z, action, false);
}

/** Gives up the puzzle shown: its solution, counted as a miss. */
export async function showSolution(): Promise<void> {
  const z = state.puzzles;
  if (!z?.puzzle || z.step !== "trying" || z.judging || !state.legal.length) return;
  await judge(z, state.legal[0], true); // any legal action's verdict carries the solutions
}

async function judge(z: Puzzles, action: Action, givingUp: boolean): Promise<void> {
  const puzzle = z.puzzle!;
  const judging = new AbortController();
  z.judging = judging;
  state.choices = null;
  state.selected = null;
  redraw.page();
  try {
    const verdict = await client.checkPuzzle({ puzzleId: puzzle.id, action }, { signal: judging.signal });
    if (state.puzzles !== z || z.puzzle !== puzzle) return;
    const next = givingUp ? { misses: z.misses, step: "shown" as const } : afterTry(z.misses, { solved: verdict.correct });
    Object.assign(z, next, { verdict });
    if (next.step !== "trying") { // the rating moves once a puzzle, with its first try
      z.before = z.progress.rating;
      z.progress = afterPuzzle(z.progress, verdict.rating, verdict.correct && !givingUp && next.misses === 0);
      localStorage.setItem(KEYS.progress, JSON.stringify(z.progress));
    }
    // above the board too: on a phone the panel is below it
    say(puzzleVerdict(verdict.correct && !givingUp, next.misses, next.step));
  } catch (e) {
    if (!judging.signal.aborted) explain(e);
  }
  if (z.judging === judging) z.judging = null;
  redraw.page();
}

/** New filters: kept, and a puzzle that fits them drawn (the one shown is left). */
export function setFilters(filters: Filters): void {
  const z = state.puzzles;
  if (!z) return;
  z.filters = filters;
  localStorage.setItem(KEYS.filters, JSON.stringify(filters));
  void nextPuzzle();
}

/** Leaves the Puzzles view: the game goes on, or the New game dialog. */
export function stopPuzzles(): void {
  if (!state.puzzles) return;
  leavePuzzles();
  redraw.fit();
  if (state.game) void advance();
  else showSetup();
}
