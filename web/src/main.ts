// The board page: set up a game, play it against the AI, analyse, undo, save, load and replay;
// review a game and practise its mistakes; solve puzzles.
// Every rule question (legal actions, resolutions, scores, results, why a move is illegal,
// the record's file form) goes to the service; the tiles' names and faces come from it too.
// This file wires the parts together, in layers that import only downwards (the exact
// layers: web/test/cycles.test.ts; `npm run cycles` fails on any import cycle):
//   main.ts      makes the Actions and the redraw from the parts below, wires the page's controls
//   controllers  play, input, searches, replay, reviewing, practising, puzzling, setup, files: change
//                the state, call the service, and ask for a redraw (redraw.ts) without importing a view
//   views        render, panels, reviewpanel, practicepanel, puzzlepanel: draw the state, and wire their
//                controls to the Actions they are given (actions.ts) without importing a controller
//   state        state, dom (the message line), redraw
//   bottom       the pure parts (game, placing, record, review, story, names, explain, drill, trainer),
//                the drawing of arguments alone (board, graph, viewport), api, actions
import { Code } from "@cacaoai/client";
import type { Actions } from "./actions";
import { setToken, whenRetrying } from "./api";
import { drawCoords } from "./board";
import type { HeatBy } from "./board";
import { $, markClipped, say } from "./dom";
import { load, openRecord, save } from "./files";
import { cancelChoice, chooseTile, commit, move, moveCursor, onHover, onTap, preview, rotate } from "./input";
import { renderEvaluation, renderGraph } from "./panels";
import { newGame, playFromReplay, undo } from "./play";
import { redraw, useRedraw } from "./redraw";
import { render, renderBoard, useViewport } from "./render";
import { replayGo, replayStep, showMoment } from "./replay";
import { renderReview } from "./reviewpanel";
import { reviewGame, toggleReview } from "./reviewing";
import { analyse, quickEvaluation, setForecast } from "./searches";
import { nextExercise, startPractice, stopPractice } from "./practising";
import { nextPuzzle, setFilters, showSolution, startPuzzles, stopPuzzles } from "./puzzling";
import { buildSetup, loadLevels, showSetup, takeToken } from "./setup";
import { placing, state } from "./state";
import { Viewport } from "./viewport";

/** What the views' controls do. */
const actions: Actions = {
  move,
  chooseTile, preview, cancelChoice, showMoment,
  replayGo: (index) => void replayGo(index),
  review: toggleReview,
  practise: (seat) => void startPractice(seat),
  nextExercise, leavePractice: stopPractice,
  forecast: (on) => { localStorage.setItem("cacao-forecast", on ? "on" : "off"); void setForecast(on); },
  puzzleNext: () => void nextPuzzle(), puzzleSolution: () => void showSolution(), puzzleFilters: setFilters,
  puzzleLeave: stopPuzzles,
};

// for tests and the curious: the page's state, and a record opened as if loaded
(window as any).cacao = state;
(window as any).cacaoOpenRecord = openRecord;

async function init(): Promise<void> {
  const token = takeToken();
  setToken(token);
  whenRetrying((r) => {
    if (r.method !== "AnalyzePosition") return; // a background evaluation waits quietly
    say(r.error.code === Code.ResourceExhausted ? "The AI service is busy with other searches: asking again shortly."
      : "The AI service does not answer: asking again shortly.");
  });
  $<HTMLInputElement>("token").value = token;
  state.heat = (localStorage.getItem("cacao-heat") ?? "visits") as HeatBy | "off";
  const svg = $("board") as unknown as SVGSVGElement;
  let graphWidth = 0; // the graph is drawn at its width: again when that changes
  new ResizeObserver(() => {
    if ($("graph").clientWidth !== graphWidth) { graphWidth = $("graph").clientWidth; redraw.graph(); }
  }).observe($("graph"));
  const message = $("message"); // a message longer than its slot unfolds over the board on a tap, and folds again
  message.onclick = (e) => {
    if (message.classList.contains("clipped") && !(e.target as Element).closest("details")) message.classList.toggle("open");
  };
  new ResizeObserver(() => markClipped()).observe($("message-slot"));
  const viewport: Viewport = new Viewport(svg, {
    tap: (cell, type) => onTap(cell, type),
    hover: (cell) => onHover(cell),
    changed: (view, unitsPerPx) => {
      drawCoords(svg, view, unitsPerPx, viewport.zoom);
    },
  });
  useViewport(viewport);
  useRedraw({
    page: () => render(actions),
    board: renderBoard,
    evaluation: () => renderEvaluation(actions),
    graph: () => renderGraph(actions),
    review: () => renderReview(actions),
    fit: () => viewport.fit(),
    reveal: (cell) => viewport.reveal(cell),
  });
  await loadLevels();
  buildSetup((players, seats, seed) => void newGame(players, seats, seed));
  $("new").onclick = () => showSetup();
  $("puzzles").onclick = () => void startPuzzles();
  $("undo").onclick = () => undo();
  $("analyse").onclick = () => analyse();
  $("save").onclick = () => save();
  $("load").onclick = () => $<HTMLInputElement>("load-file").click();
  $<HTMLInputElement>("load-file").onchange = (e) => load((e.target as HTMLInputElement).files?.[0]);
  $("rotate").onclick = () => rotate();
  $("place").onclick = () => { if (state.selected) commit(state.selected); };
  $("zoom-in").onclick = () => viewport.zoomBy(1.4);
  $("zoom-out").onclick = () => viewport.zoomBy(1 / 1.4);
  $("zoom-fit").onclick = () => { // the whole board, and all of it on the screen
    viewport.fit();
    $("board-wrap").scrollIntoView({ block: "nearest" });
  };
  const evaluateEvery = $<HTMLInputElement>("auto-eval");
  evaluateEvery.checked = state.everyMove = localStorage.getItem("cacao-evaluate") === "every move";
  evaluateEvery.onchange = () => {
    state.everyMove = evaluateEvery.checked;
    localStorage.setItem("cacao-evaluate", evaluateEvery.checked ? "every move" : "on request");
    if (evaluateEvery.checked && state.mode === "play" && !state.over && !state.busy && !state.thinking) void quickEvaluation();
    redraw.page();
  };
  const forecast = $<HTMLInputElement>("forecast");
  forecast.checked = state.forecast = localStorage.getItem("cacao-forecast") === "on";
  forecast.onchange = () => actions.forecast(forecast.checked);
  $("fold").onclick = () => {
    const folded = document.body.classList.toggle("panels-folded");
    $("fold").setAttribute("aria-pressed", String(folded));
  };
  const heat = $<HTMLSelectElement>("heat");
  heat.value = state.heat;
  heat.onchange = () => { state.heat = heat.value as HeatBy | "off"; localStorage.setItem("cacao-heat", state.heat); redraw.page(); };
  const pace = $<HTMLSelectElement>("pace");
  pace.onchange = () => { state.pace = pace.value === "auto" ? "auto" : Number(pace.value); };
  $("pause").onclick = () => {
    state.paused = !state.paused;
    if (!state.paused) state.release?.(true);
    redraw.page();
  };
  $("step").onclick = () => {
    state.steps = 1;
    state.release?.(true);
    redraw.page();
  };
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const onBoard = document.activeElement === svg;
    if (e.key === "r" || e.key === "R") rotate();
    else if (e.key === "Escape") { state.choices = null; state.selected = null; redraw.page(); }
    else if (onBoard && placing() && e.key.startsWith("Arrow")) { e.preventDefault(); moveCursor(e.key); }
    else if (onBoard && (e.key === "Enter" || e.key === " ") && state.selected) { e.preventDefault(); commit(state.selected); }
    else if (onBoard && (e.key === "+" || e.key === "=")) viewport.zoomBy(1.4);
    else if (onBoard && e.key === "-") viewport.zoomBy(1 / 1.4);
    else if (state.mode === "replay" && e.key === "ArrowRight") replayStep(1);
    else if (state.mode === "replay" && e.key === "ArrowLeft") replayStep(-1);
  });
  svg.addEventListener("wheel", (e) => { if (state.tile !== null && !e.ctrlKey) { e.preventDefault(); rotate(); } }, { passive: false });
  for (const [id, step] of [["r-first", -1e9], ["r-prev", -1], ["r-next", 1], ["r-last", 1e9]] as const) {
    $(id).onclick = () => replayStep(step);
  }
  $<HTMLInputElement>("r-slider").oninput = (e) => void replayGo(Number((e.target as HTMLInputElement).value));
  $("r-play").onclick = () => playFromReplay();
  $("review-game").onclick = () => void reviewGame();
  showSetup();
}

void init();
