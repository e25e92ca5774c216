// Drawing the page from the state: the board (tiles, targets, the ghost of the chosen
// tile, the pending fill choice, the heat map), the toolbar (the hand, Rotate, Place,
// the AI-only game's pace), the status line, the replay bar and the panels. The controls
// drawn here do what the Actions they are given say.
import { Phase } from "@cacaoai/client";
import type { Actions } from "./actions";
import { SEAT_COLOURS, drawBoard } from "./board";
import type { Cell } from "./board";
import { $ } from "./dom";
import { describe, fillsOf, placement, workerName } from "./game";
import { seatName } from "./names";
import {
  miniTile, renderChoices, renderEvaluation, renderGraph, renderResult, renderSeats, renderStory,
} from "./panels";
import { actionsAt, cellKey, fillCells, handTiles } from "./placing";
import { renderPractice } from "./practicepanel";
import { renderPuzzles } from "./puzzlepanel";
import { renderReview } from "./reviewpanel";
import {
  actionsShown, aiOnly, boardTargets, candidatesHidden, currentPosition, currentScores, focusCell, ghostAt, humanPosition,
  isHuman, placing, seatKind, shownAnswer, solving, solvingSeat, state, visibleEvaluation,
} from "./state";
import type { Viewport } from "./viewport";

/** The board's zoom and pan (made by main.ts). */
let viewport: Viewport;
export function useViewport(v: Viewport): void { viewport = v; }

/** The whole page. */
export function render(act: Actions): void {
  document.body.dataset.mode = state.mode;
  $("replay-bar").hidden = state.mode !== "replay";
  renderBoard();
  renderToolbar(act);
  renderSeats(act);
  renderStory();
  renderChoices(act);
  renderEvaluation(act);
  renderGraph(act);
  renderReview(act);
  renderPractice(act);
  renderPuzzles(act);
  $("analyse").textContent = state.analysis ? "Stop analysis" : "Analyse";
  $("analyse").toggleAttribute("disabled", solving()); // a practice or a puzzle is the player's own search
  $("puzzles").setAttribute("aria-pressed", String(state.mode === "puzzles"));
  const g = state.game;
  $("thinking").hidden = !state.thinking || state.held;
  const r = state.replay;
  if (state.mode === "replay" && r) {
    const n = r.record.actions.length;
    const slider = $<HTMLInputElement>("r-slider");
    slider.max = String(n);
    slider.value = String(r.index);
    const last = r.index > 0 ? r.record.actions[r.index - 1] : null;
    $("r-label").textContent = $("r-label").title = `${r.index} / ${n}` + (last ? ` — ${seatName(last.seat)}: ${describe(last)}` : "");
  }
  const p = currentPosition();
  let status = "";
  if (p) {
    const result = currentScores().result;
    if (p.phase === Phase.OVER) {
      status = "Game over" + (result ? `: ${result.winners.map((s) => seatName(s)).join(" and ")} win${result.winners.length > 1 ? "" : "s"}` : "");
    }
    else {
      // what the page asks at the moment: a result, a tile to place, or (the tile placed, the cells it
      // closes marked ?) which display tile goes where, as the choices' heading asks it
      const asked = p.phase === Phase.RESOLVE ? "choose a result" : state.choices?.length
        ? "choose which display tile goes where" : "place a tile";
      status = `Turn ${p.turn + 1}: ${seatName(p.toAct ?? 0)} to ${asked}`;
    }
    if (state.mode === "play" && g && !isHuman(p.toAct) && p.phase !== Phase.OVER) status += ` (AI ${seatKind(p.toAct!).replace("time:", "")})`;
    if (state.held) status += " — paused";
  }
  $("status").textContent = $("status").title = status; // one line: the whole of it in the title
  $("status").style.borderColor = p && p.phase !== Phase.OVER ? SEAT_COLOURS[p.toAct ?? 0] : "#555";
  renderResult();
}

export function renderBoard(): void {
  const p = currentPosition();
  const svg = $("board") as unknown as SVGSVGElement;
  if (!p) { svg.replaceChildren(); return; }
  const targets = boardTargets();
  let ghost = null;
  const focus = focusCell();
  const occupied = (c: Cell) => p.board.some((t) => t.x === c.x && t.y === c.y);
  if (placing() && focus && !state.choices && (targets.has(cellKey(focus)) || !occupied(focus))) {
    const legal = targets.has(cellKey(focus)); // a tile over an occupied cell only where it may overbuild
    ghost = { tile: state.tile!, x: focus.x, y: focus.y, rotation: ghostAt(), seat: p.toAct ?? 0, legal,
      chosen: focus === state.selected };
  }
  let fills = null;
  if (state.choices?.length) { // the pending tile, the cells it closes, and one way of filling them
    const first = placement(state.choices[0])!;
    ghost = { tile: first.tile, x: first.x, y: first.y, rotation: first.rotation, seat: p.toAct ?? 0, legal: true, pending: true };
    fills = { cells: fillCells(state.choices), preview: fillsOf(state.choices[state.choice]) };
  }
  const last = [...actionsShown()].reverse().map(placement).find((q) => q);
  const marked = last ? [{ x: last.x, y: last.y },
    ...("fills" in last ? last.fills : []).map((f) => ({ x: f.x, y: f.y }))] : [];
  const temples = currentScores().standing?.temples ?? [];
  const shown = visibleEvaluation();
  const heat = shown && state.heat !== "off" && !state.choices && !candidatesHidden(shown.seat)
    ? { evaluation: shown.ev, by: state.heat } : null;
  const selected = placing() ? state.selected : null;
  const shownBest = shownAnswer(); // a practice's best after two misses, a puzzle's solution
  const best = shownBest?.action ?? null;
  const answer = best && placement(best);
  if (answer && shownBest) { // its tile drawn where it goes, as it turns
    ghost = { tile: answer.tile, x: answer.x, y: answer.y, rotation: answer.rotation, seat: shownBest.seat, legal: true, chosen: true };
  }
  // the AI's own forecast stays hidden while it plays a human, as its candidates do
  const forecast = state.forecast && shown && !candidatesHidden(shown.seat) ? shown.ev.forecast?.temples ?? null : null;
  viewport.setBase(drawBoard(svg, { position: p, targets, ghost, marked, temples, fills, heat, selected, best, forecast }));
}

/** The hand of the human to act beside the board, Rotate and Place, the zoom, the
 *  heat map's measure, and for games of AIs only, their pace. */
function renderToolbar(act: Actions): void {
  const p = currentPosition();
  const tray = $("tray");
  tray.replaceChildren();
  const solver = solvingSeat();
  const mine = !!p && p.phase === Phase.TURN && (solver !== null ? humanPosition() === p
    : state.mode === "play" && isHuman(p.toAct) && !state.thinking);
  // the hand of the human to place, or while others play the hand of the (first) human seat, dimmed:
  // the tray keeps its room, so that the board does not move from turn to turn; in a practice or a puzzle, the seat's
  const seat = p && (solver !== null ? solver : isHuman(p.toAct) ? p.toAct! : state.game?.seats.indexOf("human") ?? -1);
  const handed = state.mode === "play" || solver !== null;
  if (p && handed && seat !== null && seat >= 0) {
    const hand = p.seats[seat].hand, usable = mine ? handTiles(state.legal) : [];
    hand.forEach((t, k) => {
      const chosen = mine && t === state.tile && hand.indexOf(t) === k; // the first of a kind
      const mini = miniTile(t, seat, chosen ? ghostAt() : 0, chosen ? "chosen" : mine ? "" : "waiting");
      mini.dataset.tile = workerName(t);
      mini.setAttribute("role", "button");
      mini.setAttribute("aria-label", `tile ${workerName(t)}${chosen ? " (chosen)" : ""}`);
      if (usable.includes(t)) {
        mini.classList.add("choosable");
        mini.setAttribute("tabindex", "0");
        const choose = () => act.chooseTile(t);
        mini.addEventListener("click", choose);
        mini.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
      }
      tray.appendChild(mini);
    });
  }
  tray.hidden = !handed;
  $("rotate").toggleAttribute("disabled", !mine);
  const sel = state.selected;
  const canPlace = placing() && !!sel && actionsAt(state.legal, state.tile, sel).length > 0 && !state.choices;
  $("place").hidden = !canPlace;
  if (canPlace && sel) $("place").textContent = `Place at (${sel.x},${sel.y})`; // its room is kept when hidden (style.css)
  $("zoom-fit").toggleAttribute("disabled", !currentPosition());
  $("pace-group").hidden = !(state.mode === "play" && aiOnly() && !state.over);
  $("pause").textContent = state.paused ? "Resume" : "Pause";
  $("pause").setAttribute("aria-pressed", String(state.paused));
  $("step").toggleAttribute("disabled", !state.paused || state.over);
}
