// What the views' controls do: the views take these as a parameter and wire them to
// their buttons; main.ts makes them from the controllers' functions.
import type { Action, WorkerTile } from "@cacaoai/client";
import type { Filters } from "./trainer";

export interface Actions {
  /** Plays an action of the human to act. */
  move(action: Action): void;
  /** Chooses a hand tile to place. */
  chooseTile(tile: WorkerTile): void;
  /** Draws way `i` of filling the closed cells on the board. */
  preview(i: number): void;
  /** Leaves the fill choice without playing. */
  cancelChoice(): void;
  /** Shows the position after `index` actions (a click on the graph). */
  showMoment(index: number): void;
  /** Shows the position after `index` actions in the replay viewer (the review's way from mistake to mistake). */
  replayGo(index: number): void;
  /** The review button: starts a review, stops it while it runs, or closes it. */
  review(): void;
  /** Practises the reviewed mistakes of `seat`. */
  practise(seat: number): void;
  /** The practice's next exercise (after a verdict, or a skip). */
  nextExercise(): void;
  /** Leaves the practice for the review. */
  leavePractice(): void;
  /** The forecast overlay on or off (the evaluations ask for it). */
  forecast(on: boolean): void;
  /** The next puzzle (the one shown is left). */
  puzzleNext(): void;
  /** Gives up the puzzle shown: its solution (a miss). */
  puzzleSolution(): void;
  /** Draws puzzles that fit these filters from now on. */
  puzzleFilters(filters: Filters): void;
  /** Leaves the Puzzles view. */
  puzzleLeave(): void;
}
