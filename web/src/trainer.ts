// The Puzzles view's rules (pure): the filters (a theme, a rating range) and the ratings a
// range may start or end at, what the page keeps in localStorage (the player's puzzle
// rating and streak, the puzzles seen, the filters) read back safely, what a try's verdict
// does to a puzzle (drill.ts's afterTry: solved, one more try, the solution shown), and
// the puzzle, the verdict and the rating's change in words. The rating itself moves as
// @cacaoai/client's afterPuzzle says (Elo against the puzzle's rating: docs/protocol.md).
import { PUZZLE_TRIES, firstProgress } from "@cacaoai/client";
import type { PuzzleProgress } from "@cacaoai/client";
import type { Step } from "./drill";

/** Which puzzles to draw: a theme ("": any) and a rating range (null: no bound). */
export interface Filters { theme: string; min: number | null; max: number | null }

export const ANY: Filters = { theme: "", min: null, max: null };
/** The ratings a range may start or end at: the levels' (600 beginner ... 1800 max) and 2200 (beyond). */
export const RATINGS = [600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200];
/** The most puzzle ids the page remembers as seen (the oldest are forgotten first). */
export const SEEN_KEPT = 1000;
/** localStorage keys. */
export const KEYS = { progress: "cacao-puzzle-progress", seen: "cacao-puzzles-seen", filters: "cacao-puzzle-filters" };

function parsed(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

const whole = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** The player's progress as stored (anything unreadable: a first progress). */
export function readProgress(text: string | null): PuzzleProgress {
  const v = parsed(text) as Record<string, unknown> | null;
  const first = firstProgress();
  if (!v || typeof v !== "object") return first;
  const keys = Object.keys(first);
  return keys.every((k) => whole(v[k])) ? Object.fromEntries(keys.map((k) => [k, v[k]])) as unknown as PuzzleProgress : first;
}

/** The ids of the puzzles seen, as stored (anything unreadable: none). */
export function readSeen(text: string | null): string[] {
  const v = parsed(text);
  return Array.isArray(v) ? v.filter((id): id is string => typeof id === "string").slice(-SEEN_KEPT) : [];
}

/** The filters as stored (anything unreadable: any puzzle). */
export function readFilters(text: string | null): Filters {
  const v = parsed(text) as Record<string, unknown> | null;
  if (!v || typeof v !== "object") return { ...ANY };
  const bound = (b: unknown) => (whole(b) ? b : null);
  return { theme: typeof v.theme === "string" ? v.theme : "", min: bound(v.min), max: bound(v.max) };
}

/** `seen` with `id` last (once), the oldest forgotten beyond SEEN_KEPT. */
export const remember = (seen: readonly string[], id: string): string[] =>
  [...seen.filter((s) => s !== id), id].slice(-SEEN_KEPT);

/** The filters with a range that makes sense: a low end above the high one moves the high one up. */
export function withRange(f: Filters, min: number | null, max: number | null): Filters {
  return { ...f, min, max: min !== null && max !== null && max < min ? min : max };
}

/** The filters in words, for a puzzle that none fits: "temple majority, rated 1000 to 1600". */
export function filtersText(f: Filters): string {
  const range = f.min !== null && f.max !== null ? `rated ${f.min} to ${f.max}` : f.min !== null ? `rated ${f.min} or more`
    : f.max !== null ? `rated ${f.max} or less` : "";
  return [f.theme, range].filter(Boolean).join(", ") || "any puzzle";
}

/** The verdict in a player's words after a try (`misses` counted with it) or after giving
 *  up (the solution shown with fewer misses than PUZZLE_TRIES). */
export function puzzleVerdict(correct: boolean, misses: number, step: Step): string {
  if (correct) return misses === 0 ? "Correct!" : "Correct, at the second try.";
  if (step === "trying") return "Not this one. Try once more.";
  return misses >= PUZZLE_TRIES ? "Not this one either: the solution is shown on the board."
    : "The solution is shown on the board.";
}

/** A rating's change: "1200 → 1216 (+16)". */
export function ratingChange(before: number, after: number): string {
  const d = after - before;
  return `${before} → ${after} (${d > 0 ? "+" : d < 0 ? "−" : "±"}${Math.abs(d)})`;
}
