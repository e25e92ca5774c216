// The human's hands on the board: a tap or a click on a cell (the mouse places at once;
// a finger first chooses the cell, a second tap places), the tile's rotation, the
// pointer over the board, and the keyboard's cursor.
import { Phase } from "@cacaoai/client";
import type { Cell } from "./board";
import { $, say } from "./dom";
import { fillsOf, placement } from "./game";
import { actionsAt, ghostRotation, nextCell, nextRotation, targetsOf, whyNot } from "./placing";
import type { Target } from "./placing";
import { humanMove } from "./play";
import { render, renderBoard, viewport } from "./render";
import { focusCell, isHuman, placing, state } from "./state";

/** The cells the chosen tile may go to (a human's turn, no fill choice open). */
export function boardTargets(): Map<string, Target> {
  if (!placing() || state.choices) return new Map();
  return targetsOf(state.legal, state.tile);
}

/** The rotation the chosen tile is drawn at on `cell`. */
export const ghostAt = (cell: Cell | null = focusCell()) => ghostRotation(state.legal, state.tile, state.rotation, cell);

export function rotate(): void {
  if (state.tile === null) return;
  state.rotation = nextRotation(state.legal, state.tile, state.rotation, focusCell());
  render();
}

/** A tap or a click on a cell. The mouse places at once; a finger or a pen first chooses
 *  the cell (the tile is drawn there, Rotate turns it), and a second tap places. */
export function onTap(cell: Cell, pointerType: string): void {
  const g = state.game;
  if (state.mode !== "play" || !g || !isHuman(g.position.toAct) || state.thinking || state.busy) return;
  if (state.choices) { // a tap on a cell to fill shows the next way of filling
    const cells = state.choices.flatMap(fillsOf);
    if (cells.some((f) => f.x === cell.x && f.y === cell.y)) { state.choice = (state.choice + 1) % state.choices.length; renderBoard(); }
    return;
  }
  if (g.position.phase !== Phase.TURN || state.tile === null) {
    say("First choose one of the results offered.", true);
    return;
  }
  const same = state.selected?.x === cell.x && state.selected?.y === cell.y;
  if (pointerType !== "mouse" && !same) {
    state.selected = cell;
    render();
    return;
  }
  commit(cell);
}

/** Places the chosen tile on `cell` at the ghost's rotation (or asks which display tiles go where). */
export function commit(cell: Cell): void {
  const g = state.game;
  if (!g || !placing()) return;
  const rotation = ghostAt(cell); // the one drawn there
  const options = actionsAt(state.legal, state.tile, cell).filter((a) => placement(a)!.rotation === rotation);
  if (options.length === 1) { void humanMove(options[0]); return; }
  if (options.length > 1) {
    state.choices = options;
    state.choice = 0;
    state.tapped = -1;
    state.selected = null;
    render();
    return;
  }
  // not a legal move: the page knows every legal one, and says why without asking
  state.selected = null;
  say(whyNot(g.position, state.legal, state.tile, cell), true);
  render();
}

export function onHover(cell: Cell | null): void {
  state.hover = cell;
  $("cell-readout").textContent = cell ? `(${cell.x},${cell.y})` : "";
  renderBoard();
}

/** Arrow keys on the board: move the chosen cell (to the nearest target in that direction, else one cell). */
export function moveCursor(key: string): void {
  const next = nextCell(boardTargets().keys(), state.selected ?? state.hover, key);
  state.selected = next;
  $("cell-readout").textContent = `(${next.x},${next.y})`;
  viewport.reveal(next);
  render();
}
