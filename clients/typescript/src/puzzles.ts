// Puzzles: a position from one seat's view where one action is clearly best, drawn by
// the service (GetPuzzle, never with its solution) and a try judged by it (CheckPuzzle).
// A player gets two tries, as on lichess; a puzzle rating follows each puzzle as an Elo
// rating follows a game against an opponent rated as the puzzle, and a streak counts the
// puzzles solved at the first try in a row. The same rules as the Python client's
// cacaoai.client.puzzles (docs/protocol.md, "CheckPuzzle").
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { CallOptions } from "@connectrpc/connect";
import type { CacaoClient } from "./client.js";
import type { GetPuzzleRequestSchema, GetPuzzleResponse } from "./gen/cacao/v1/cacao_pb.js";

/** A player's first puzzle rating. */
export const START_RATING = 1200;
/** How far one puzzle moves the rating (the Elo K-factor). */
export const PUZZLE_K = 32;
/** The lowest rating. */
export const RATING_FLOOR = 100;
/** Tries at one puzzle before its solution is shown. */
export const PUZZLE_TRIES = 2;

/** The chance a player of `rating` solves a puzzle of `puzzleRating` at the first try,
 *  as Elo expects a game's score: 0.5 for equal ratings. */
export function expectedScore(rating: number, puzzleRating: number): number {
  return 1 / (1 + 10 ** ((puzzleRating - rating) / 400));
}

/** The player's rating after a puzzle: `solved` at the first try scores 1, anything else 0;
 *  never below RATING_FLOOR. */
export function newRating(rating: number, puzzleRating: number, solved: boolean): number {
  // Python's round() (half to even) and Math.round differ only at exact halves, which
  // K times an expected score does not reach (K · 0.5 is whole)
  return Math.max(RATING_FLOOR, Math.round(rating + PUZZLE_K * ((solved ? 1 : 0) - expectedScore(rating, puzzleRating))));
}

/** A player's puzzle rating, streak and counts. */
export interface PuzzleProgress {
  rating: number;
  /** Puzzles solved at the first try in a row, up to now. */
  streak: number;
  bestStreak: number;
  /** Puzzles solved at the first try. */
  solved: number;
  played: number;
}

/** The progress of a player who has played no puzzle. */
export const firstProgress = (): PuzzleProgress => ({ rating: START_RATING, streak: 0, bestStreak: 0, solved: 0, played: 0 });

/** The progress after a puzzle of `puzzleRating`, solved at the first try or not. */
export function afterPuzzle(p: PuzzleProgress, puzzleRating: number, firstTry: boolean): PuzzleProgress {
  const streak = firstTry ? p.streak + 1 : 0;
  return { rating: newRating(p.rating, puzzleRating, firstTry), streak, bestStreak: Math.max(p.bestStreak, streak),
    solved: p.solved + (firstTry ? 1 : 0), played: p.played + 1 };
}

/** GetPuzzle's filters (and seed) without `exclude`, which drawPuzzle fills. */
export type PuzzleFilters = Omit<MessageInitShape<typeof GetPuzzleRequestSchema>, "exclude" | "$typeName">;

/** A puzzle drawn by `drawPuzzle`, and whether every puzzle that fits had been seen (the
 *  ids seen were forgotten, and this one is among them again). */
export interface Drawn { reply: GetPuzzleResponse; startedOver: boolean }

/** A puzzle that passes `filters`, not one of `seen` (ids); when the seen ones are all that
 *  pass, they come again (`startedOver`). Rejects with the service's NotFound when no
 *  puzzle passes the filters at all. */
export async function drawPuzzle(client: CacaoClient, filters: PuzzleFilters, seen: readonly string[],
                                 options?: CallOptions): Promise<Drawn> {
  const ask = (exclude: readonly string[]) => client.getPuzzle({ ...filters, exclude: [...exclude] }, options);
  try {
    return { reply: await ask(seen), startedOver: false };
  } catch (e) {
    if (!seen.length || ConnectError.from(e).code !== Code.NotFound) throw e;
    return { reply: await ask([]), startedOver: true };
  }
}
