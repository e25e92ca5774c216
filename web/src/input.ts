// The human's hands on the board: a tap or a click on a cell (the mouse places at once;
// a finger first chooses the cell, a second tap places), the tile chosen and its
// rotation, the pointer over the board, the keyboard's cursor, and the fill choice's
// preview.
import { Phase } from "@cacaoai/client";
import type { WorkerTile } from "@cacaoai/client";
import type { Cell } from "./board";
import { $, say } from "./dom";
import { fillsOf, placement } from "./game";
import { actionsAt, nextCell, nextRotation, whyNot } from "./placing";
import { humanMove } from "./play";
import { redraw } from "./redraw";
import { tryAction } from "./practising";
import { tryPuzzle } from "./puzzling";
import { boardTargets, focusCell, ghostAt, humanPosition, placing, state } from "./state";
import type { Action } from "@cacaoai/client";

/** A human's action: a move of the game, or a try in a practice or at a puzzle. */
export function move(action: Action): void {
  if (state.mode === "practice") void tryAction(action);
  else if (state.mode === "puzzles") void tryPuzzle(action);
  else void humanMove(action);
}

export function rotate(): void {
  if (state.tile === null) return;
  state.rotation = nextRotation(state.legal, state.tile, state.rotation, focusCell());
  redraw.page();
}

/** A hand tile chosen to place, at its first rotation. */
export function chooseTile(tile: WorkerTile): void {
  state.tile = tile;
  state.rotation = 0;
  redraw.page();
}

/** Way `i` of filling the closed cells drawn on the board. */
export function preview(i: number): void {
  state.choice = i;
  redraw.board();
}

/** The fill choice left without playing. */
export function cancelChoice(): void {
  state.choices = null;
  redraw.page();
}

/** A tap or a click on a cell. The mouse places at once; a finger or a pen first chooses
 *  the cell (the tile is drawn there, Rotate turns it), and a second tap places. */
export function onTap(cell: Cell, pointerType: string): void {
  const position = humanPosition();
  if (!position) return;
  if (state.choices) { // a tap on a cell to fill shows the next way of filling
    const cells = state.choices.flatMap(fillsOf);
    if (cells.some((f) => f.x === cell.x && f.y === cell.y)) { state.choice = (state.choice + 1) % state.choices.length; redraw.board(); }
    return;
  }
  if (position.phase !== Phase.TURN || state.tile === null) {
    say("First choose one of the results offered.", true);
    return;
  }
  const same = state.selected?.x === cell.x && state.selected?.y === cell.y;
  if (pointerType !== "mouse" && !same) {
    state.selected = cell;
    redraw.page();
    return;
  }
  commit(cell);
}

/** Places the chosen tile on `cell` at the ghost's rotation (or asks which display tiles go where). */
export function commit(cell: Cell): void {
  const position = humanPosition();
  if (!position || !placing()) return;
  const rotation = ghostAt(cell); // the one drawn there
  const options = actionsAt(state.legal, state.tile, cell).filter((a) => placement(a)!.rotation === rotation);
  if (options.length === 1) { move(options[0]); return; }
  if (options.length > 1) {
    state.choices = options;
    state.choice = 0;
    state.tapped = -1;
    state.selected = null;
    redraw.page();
    return;
  }
  // not a legal move: the page knows every legal one, and says why without asking
  state.selected = null;
  say(whyNot(position, state.legal, state.tile, cell), true);
  redraw.page();
}

export function onHover(cell: Cell | null): void {
  state.hover = cell;
  $("cell-readout").textContent = cell ? `(${cell.x},${cell.y})` : "";
  redraw.board();
}

/** Arrow keys on the board: move the chosen cell (to the nearest target in that direction, else one cell). */
export function moveCursor(key: string): void {
  const next = nextCell(boardTargets().keys(), state.selected ?? state.hover, key);
  state.selected = next;
  $("cell-readout").textContent = `(${next.x},${next.y})`;
  redraw.reveal(next);
  redraw.page();
}
