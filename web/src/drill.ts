// Practising a review's mistakes, the page's rules for it (pure): whose mistakes (the
// game's human seat, else seat 0), the review's budget and seed (a try is judged by the
// same search as the review, so it gets the verdict the review would give), what a try's
// verdict does to the exercise (solved; a miss and one more try; a second miss shows the
// best action), and how progress and a verdict read.
import { SearchLimitsSchema, create } from "@cacaoai/client";
import type { SearchLimits, Verdict } from "@cacaoai/client";
import { classWords, percent } from "./review";

/** Where an exercise stands: waiting for a try, solved, or its answer shown (two misses). */
export type Step = "trying" | "solved" | "shown";

/** Tries an exercise allows before its answer is shown. */
export const TRIES = 2;
/** Forecast playouts an evaluation asks for when the forecast overlay is on. */
export const FORECAST_PLAYOUTS = 128;

/** The seat whose mistakes are practised by default: the game's (first) human seat, else seat 0. */
export function practiceSeat(seats: readonly string[] | undefined): number {
  const human = seats?.indexOf("human") ?? -1;
  return human >= 0 ? human : 0;
}

/** A review's search limits (iterations; 0: the service's default). */
export const reviewLimits = (iterations: number): SearchLimits | undefined =>
  iterations > 0 ? create(SearchLimitsSchema, { iterations: BigInt(iterations) }) : undefined;

/** The exercise after a try judged `verdict` with `misses` misses before it. */
export function afterTry(misses: number, verdict: Pick<Verdict, "solved">): { misses: number; step: Step } {
  if (verdict.solved) return { misses, step: "solved" };
  return { misses: misses + 1, step: misses + 1 >= TRIES ? "shown" : "trying" };
}

/** "2 of 5": the exercise shown (from 0) of how many. */
export const progressText = (at: number, total: number) => `${Math.min(at + 1, total)} of ${total}`;

/** A verdict in a player's words: solved, or its class and what it loses against the best. */
export function verdictText(verdict: Pick<Verdict, "solved" | "classification" | "winLoss">, step: Step): string {
  if (verdict.solved) return `Solved: a ${classWords(verdict.classification)}.`;
  const loss = `it loses ${percent(Math.max(verdict.winLoss, 0))} of win chance against the best`;
  const what = `${verdict.classification === "inaccuracy" ? "An" : "A"} ${classWords(verdict.classification)}: ${loss}.`;
  return step === "shown" ? `${what} The best move is shown on the board.` : `${what} Try once more.`;
}
