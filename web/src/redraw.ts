// How the controllers ask for the page to be drawn again, without importing the views:
// main.ts gives the views' functions once (useRedraw), every controller calls these.
import type { Cell } from "./board";

export interface Redraw {
  /** The whole page. */
  page(): void;
  /** The board alone (the pointer moved, a fill choice previewed, a heat map). */
  board(): void;
  /** The evaluation panel (bar, legend, candidates). */
  evaluation(): void;
  /** The game's graph. */
  graph(): void;
  /** The review panel. */
  review(): void;
  /** The whole board in view (a new game). */
  fit(): void;
  /** `cell` in view (the keyboard's cursor moved there). */
  reveal(cell: Cell): void;
}

let views: Redraw | null = null;

/** The views' functions the controllers' requests go to (main.ts, or a test). */
export function useRedraw(r: Redraw): void { views = r; }

/** Asks for a part of the page to be drawn again (nothing before useRedraw). */
export const redraw: Redraw = {
  page: () => views?.page(),
  board: () => views?.board(),
  evaluation: () => views?.evaluation(),
  graph: () => views?.graph(),
  review: () => views?.review(),
  fit: () => views?.fit(),
  reveal: (cell) => views?.reveal(cell),
};
