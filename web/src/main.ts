// The board page: set up a game, play it against the AI, analyse, undo, save, load and replay.
// Every rule question (legal actions, resolutions, scores, results, why a move is illegal,
// the record's file form) goes to the service; the tiles' names and faces come from it too.
import {
  ActionSchema, Code, GameRecordSchema, Phase, clone, create, durationFromMs, explainError, needsToken,
} from "@cacaoai/client";
import type {
  Action, Evaluation, Fill, GameRecord, GameResult, Position, Standing, WorkerTile,
} from "@cacaoai/client";
import { client, fromRecord, setToken, whenRetrying } from "./api";
import {
  CELL, SEAT_COLOURS, SEAT_INK, SEAT_LIGHT, SEAT_NAMES, SEAT_ON, SEAT_SYMBOLS, WATER, drawBoard, drawCoords, jungleTile, seatBadge, workerTile,
} from "./board";
import type { Cell, HeatBy } from "./board";
import { plainError } from "./explain";
import {
  describe, fillsOf, haveRules, jungleName, maxCacao, maxSun, placement, sameAction, setRules, waterTrack, workerName,
} from "./game";
import { drawGraph } from "./graph";
import type { GraphPoint } from "./graph";
import { Viewport } from "./viewport";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

type SeatKind = "human" | string; // "human" or an AI level ("casual", "time:2")
/** A game being played: its record (the source of every request), the position
 *  it reaches, the service's standing and result there, and the evaluation kept of
 *  each position reached (by the number of actions before it), for the game's graph. */
interface Game {
  record: GameRecord; position: Position; hash: string; seats: SeatKind[]; seed: number;
  standing?: Standing; result?: GameResult; evals: Map<number, Evaluation>;
}
/** A record in the replay viewer, at action `index`. */
interface Replay {
  record: GameRecord; index: number; evals: Map<number, Evaluation>;
  standing?: Standing; result?: GameResult; hash: string;
}
/** An evaluation on show, with the position it belongs to. */
interface Shown { ev: Evaluation; hash: string; seat: number; seq: number }

/** Iterations of the evaluation of each position (the bar after each move, the replay viewer, the graph). */
const EVAL_ITERATIONS = { move: 1500, replay: 2000 };
/** Candidates asked of a search: enough for the heat map; the list shows the first few. */
const CANDIDATES = 30, LISTED = 6;
/** An AI-only game's pace when "auto": the time between its moves. */
const AUTO_PACE_MS = 1000;

const state = {
  mode: "setup" as "setup" | "play" | "replay",
  levels: [] as string[],
  game: null as Game | null,
  replay: null as Replay | null,
  legal: [] as Action[],
  tile: null as WorkerTile | null, // the hand tile chosen for placing
  rotation: 0,
  hover: null as Cell | null, // the cell under the mouse
  selected: null as Cell | null, // the cell a tap or the keyboard chose (a second tap places)
  choices: null as Action[] | null, // several actions for one cell (which display tile goes where)
  choice: 0, // the choice drawn on the board
  thinking: null as AbortController | null,
  analysis: null as AbortController | null,
  quick: null as AbortController | null, // the evaluation bar's search
  filling: null as AbortController | null, // the evaluations the graph still needs
  evaluation: null as Shown | null,
  message: "",
  busy: false, // a move is on its way: the page takes no other
  heat: (localStorage.getItem("cacao-heat") ?? "visits") as HeatBy | "off",
  pace: "auto" as "auto" | number, // ms between an AI's moves
  paused: false,
  held: false, // an AI move waits for Resume or Step
  steps: 0, // actions Step lets through while paused
  release: null as ((go: boolean) => void) | null,
  lastMoveAt: 0,
  moveTimes: [] as { at: number; seat: number; ai: boolean }[], // when each action was applied (performance.now)
  palette: { seats: SEAT_COLOURS, light: SEAT_LIGHT, ink: SEAT_INK, on: SEAT_ON, water: WATER },
  /** The game being played is over. */
  get over(): boolean { return state.game?.position.phase === Phase.OVER; },
};
// for tests and the curious: the page's state
(window as any).cacao = state;

let viewport: Viewport;

function budget(kind: SeatKind) {
  return kind.startsWith("time:")
    ? { case: "limits" as const, value: { time: durationFromMs(Number(kind.slice(5)) * 1000) } }
    : { case: "level" as const, value: kind };
}

/** A record cut after its first `actions` actions (no result). */
function cut(record: GameRecord, actions: number): GameRecord {
  const out = clone(GameRecordSchema, record);
  out.actions = out.actions.slice(0, actions);
  out.result = undefined;
  return out;
}

const delay = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

// ---------------------------------------------------------------- setup

const TOKEN_KEY = "cacao-token";

/** The token from the address (`#token=...`, then dropped from it) or this tab's storage. */
function takeToken(): string {
  const fromAddress = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromAddress !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromAddress);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

/** The server's levels and rules facts (tile names and faces, the water track, limits). */
async function loadLevels(): Promise<void> {
  try {
    const info = await client.getServerInfo({});
    state.levels = info.levels.map((l) => l.name);
    if (info.rules) setRules(info.rules);
  } catch (e) {
    if (needsToken(e)) {
      say(`This server needs a token: enter it under New game, or open the page as ${location.origin}/#token=YOUR_TOKEN`,
        true, `${explainError(e).code}: ${explainError(e).message}`);
    } else {
      explain(e);
    }
  }
}

async function init(): Promise<void> {
  const token = takeToken();
  setToken(token);
  whenRetrying((r) => {
    if (r.method !== "AnalyzePosition") return; // a background evaluation waits quietly
    say(r.error.code === Code.ResourceExhausted ? "The AI service is busy with other searches: asking again shortly."
      : "The AI service does not answer: asking again shortly.");
  });
  $<HTMLInputElement>("token").value = token;
  const svg = $("board") as unknown as SVGSVGElement;
  let graphWidth = 0; // the graph is drawn at its width: again when that changes
  new ResizeObserver(() => {
    if ($("graph").clientWidth !== graphWidth) { graphWidth = $("graph").clientWidth; renderGraph(); }
  }).observe($("graph"));
  viewport = new Viewport(svg, {
    tap: (cell, type) => onTap(cell, type),
    hover: (cell) => onHover(cell),
    changed: (view, unitsPerPx) => {
      drawCoords(svg, view, unitsPerPx, viewport.zoom);
      $("zoom-fit").toggleAttribute("disabled", viewport.zoom === 1);
    },
  });
  await loadLevels();
  buildSetup();
  $("new").onclick = () => showSetup();
  $("undo").onclick = () => undo();
  $("analyse").onclick = () => analyse();
  $("save").onclick = () => save();
  $("load").onclick = () => $<HTMLInputElement>("load-file").click();
  $<HTMLInputElement>("load-file").onchange = (e) => load((e.target as HTMLInputElement).files?.[0]);
  $("rotate").onclick = () => rotate();
  $("place").onclick = () => { if (state.selected) commit(state.selected); };
  $("zoom-in").onclick = () => viewport.zoomBy(1.4);
  $("zoom-out").onclick = () => viewport.zoomBy(1 / 1.4);
  $("zoom-fit").onclick = () => viewport.fit();
  $("fold").onclick = () => {
    const folded = document.body.classList.toggle("panels-folded");
    $("fold").setAttribute("aria-pressed", String(folded));
  };
  const heat = $<HTMLSelectElement>("heat");
  heat.value = state.heat;
  heat.onchange = () => { state.heat = heat.value as HeatBy | "off"; localStorage.setItem("cacao-heat", state.heat); render(); };
  const pace = $<HTMLSelectElement>("pace");
  pace.onchange = () => { state.pace = pace.value === "auto" ? "auto" : Number(pace.value); };
  $("pause").onclick = () => {
    state.paused = !state.paused;
    if (!state.paused) state.release?.(true);
    render();
  };
  $("step").onclick = () => {
    state.steps = 1;
    state.release?.(true);
    render();
  };
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    const onBoard = document.activeElement === svg;
    if (e.key === "r" || e.key === "R") rotate();
    else if (e.key === "Escape") { state.choices = null; state.selected = null; render(); }
    else if (onBoard && placing() && e.key.startsWith("Arrow")) { e.preventDefault(); moveCursor(e.key); }
    else if (onBoard && (e.key === "Enter" || e.key === " ") && state.selected) { e.preventDefault(); commit(state.selected); }
    else if (onBoard && (e.key === "+" || e.key === "=")) viewport.zoomBy(1.4);
    else if (onBoard && e.key === "-") viewport.zoomBy(1 / 1.4);
    else if (state.mode === "replay" && e.key === "ArrowRight") replayStep(1);
    else if (state.mode === "replay" && e.key === "ArrowLeft") replayStep(-1);
  });
  svg.addEventListener("wheel", (e) => { if (state.tile && !e.ctrlKey) { e.preventDefault(); rotate(); } }, { passive: false });
  for (const [id, step] of [["r-first", -1e9], ["r-prev", -1], ["r-next", 1], ["r-last", 1e9]] as const) {
    $(id).onclick = () => replayStep(step);
  }
  $<HTMLInputElement>("r-slider").oninput = (e) => replayGo(Number((e.target as HTMLInputElement).value));
  $("r-play").onclick = () => playFromReplay();
  showSetup();
}

function levelOptions(selected: string): string {
  const ai = [...state.levels.map((l) => [l, `AI ${l}`]), ["time:1", "AI thinks 1 s"], ["time:3", "AI thinks 3 s"]];
  return [["human", "human"], ...ai].map(([v, t]) =>
    `<option value="${v}"${v === selected ? " selected" : ""}>${t}</option>`).join("");
}

function buildSetup(): void {
  const rows = [0, 1, 2, 3].map((s) => `<label class="seat-row" data-seat="${s}">
    ${seatBadge(s, 14)} seat ${s} (${SEAT_NAMES[s]})
    <select id="seat-${s}">${levelOptions(s === 0 ? "human" : "casual")}</select></label>`).join("");
  $("setup-seats").innerHTML = rows;
  const players = $<HTMLSelectElement>("players");
  const sync = () => document.querySelectorAll<HTMLElement>(".seat-row").forEach((row) => {
    row.style.display = Number(row.dataset.seat) < Number(players.value) ? "" : "none";
  });
  players.onchange = sync;
  sync();
  $("start").onclick = async () => {
    const token = $<HTMLInputElement>("token").value.trim();
    if (token !== (sessionStorage.getItem(TOKEN_KEY) ?? "")) {
      sessionStorage.setItem(TOKEN_KEY, token);
      setToken(token);
      if (!state.levels.length) {  // refused before: ask again with the token
        await loadLevels();
        buildSetup();
        return;
      }
    }
    const n = Number(players.value);
    const seats = [...Array(n).keys()].map((s) => $<HTMLSelectElement>(`seat-${s}`).value);
    const seedText = $<HTMLInputElement>("seed").value.trim();
    void newGame(n, seats, seedText ? Number(seedText) : Math.floor(Math.random() * 1e9));
  };
}

function showSetup(): void {
  stopThinking();
  stopAnalysis();
  stopFilling();
  state.mode = state.game ? "play" : "setup";
  $("setup").hidden = false;
  render();
}

async function newGame(players: number, seats: SeatKind[], seed: number): Promise<void> {
  if (!haveRules()) await loadLevels(); // the tiles cannot be drawn without the rules facts
  if (!haveRules()) return;
  $("setup").hidden = true;
  stopThinking();
  stopFilling();
  state.legal = [];
  state.busy = true;
  let reply;
  try {
    reply = await client.newGame({ players, seed: BigInt(seed) });
  } catch (e) {
    state.busy = false;
    explain(e);
    return;
  }
  state.game = { record: reply.record!, position: reply.position!, hash: reply.positionHash, seats, seed, evals: new Map() };
  state.mode = "play";
  state.evaluation = null;
  state.paused = false;
  state.steps = 0;
  state.moveTimes = [];
  state.lastMoveAt = performance.now();
  viewport.fit();
  say(`new game: ${players} players, seed ${seed}`);
  await advance();
}

// ---------------------------------------------------------------- playing

const seatKind = (s: number) => state.game?.seats[s] ?? "human";
const isHuman = (s: number | undefined) => s !== undefined && seatKind(s) === "human";
const aiOnly = () => !!state.game && !state.game.seats.includes("human");

/** After every change: draw, then let the AI move or ask the service what the human may do. */
async function advance(): Promise<void> {
  const g = state.game!;
  state.legal = [];
  state.choices = null;
  state.selected = null;
  const toAct = g.position.toAct;
  if (g.position.phase === Phase.OVER) {
    state.busy = false;
    state.evaluation = null;
    render();
    void fillGraph();
    return;
  }
  if (!isHuman(toAct)) {
    render();
    await aiMove(toAct!);
    return;
  }
  let reply;
  try {
    reply = await client.listLegalActions({ source: fromRecord(g.record) });
  } catch (e) {
    state.busy = false;
    explain(e);
    render();
    return;
  }
  state.legal = reply.actions;
  g.standing = reply.standing;
  const tiles = handTiles();
  if (!state.tile || !tiles.includes(state.tile)) state.tile = tiles[0] ?? null;
  state.busy = false;
  render();
  if ($<HTMLInputElement>("auto-eval").checked) void quickEvaluation();
}

/** The hand tiles that some legal placement or overbuild uses. */
function handTiles(): WorkerTile[] {
  const out: WorkerTile[] = [];
  for (const a of state.legal) {
    const t = placement(a)?.tile;
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** Plays an action through the service; the action as applied, or null (the page
 *  shows why). */
async function apply(action: Action): Promise<Action | null> {
  const g = state.game!;
  try {
    const reply = await client.applyAction({ source: fromRecord(g.record), action, expectedPositionHash: g.hash });
    g.record = reply.record!;
    g.position = reply.position!;
    g.hash = reply.positionHash;
    g.standing = reply.standing;
    g.result = reply.result ?? g.record.result;
    state.message = "";
    state.lastMoveAt = performance.now();
    state.moveTimes.push({ at: state.lastMoveAt, seat: action.seat, ai: !isHuman(action.seat) });
    return reply.action ?? action;
  } catch (e) {
    explain(e);
    return null;
  }
}

async function humanMove(action: Action): Promise<void> {
  if (state.busy) return;
  stopAnalysis(); // and the evaluation bar's search: the position changes
  state.choices = null;
  state.selected = null;
  state.busy = true; // until the next human decision (or the end) is ready
  const applied = await apply(action);
  if (applied) {
    say(`${SEAT_NAMES[applied.seat]}: ${describe(applied)}`);
    await advance();
  } else {
    state.busy = false;
    render();
  }
}

function stopThinking(): void { state.thinking?.abort(); state.thinking = null; }
function stopAnalysis(): void {
  state.analysis?.abort(); state.analysis = null;
  state.quick?.abort(); state.quick = null;
}
function stopFilling(): void { state.filling?.abort(); state.filling = null; }

/** Keeps the evaluation of the position after `index` actions, if it says more than the one kept. */
function keep(evals: Map<number, Evaluation>, index: number, ev: Evaluation): void {
  const old = evals.get(index);
  if (!old || !old.seats.length || (ev.seats.length && ev.iterations >= old.iterations)) evals.set(index, ev);
}

/** Waits while the game is paused (Step lets one action through); false when the wait was ended. */
async function gate(signal: AbortSignal): Promise<boolean> {
  while (state.paused && state.steps <= 0 && !signal.aborted) {
    state.held = true;
    render();
    await new Promise<boolean>((resolve) => {
      state.release = resolve;
      signal.addEventListener("abort", () => resolve(false), { once: true });
    });
    state.release = null;
  }
  state.held = false;
  return !signal.aborted;
}

function paceMs(): number {
  return state.pace === "auto" ? (aiOnly() ? AUTO_PACE_MS : 0) : state.pace;
}

async function aiMove(seat: number): Promise<void> {
  const g = state.game!;
  const controller = new AbortController();
  state.thinking = controller;
  const hash = g.hash, index = g.record.actions.length;
  if (!(await gate(controller.signal))) return;
  render();
  let last: Evaluation | undefined;
  try {
    // the whole record: the search sees only what the seat to act sees of it
    const reports = client.analyzePosition({
      source: fromRecord(g.record), budget: budget(seatKind(seat)),
      seed: BigInt(g.seed + g.record.actions.length), maxCandidates: aiOnly() ? CANDIDATES : 5,
      reportInterval: durationFromMs(200),
    }, { signal: controller.signal });
    for await (const m of reports) {
      if (!m.evaluation) continue;
      last = m.evaluation;
      showEvaluation(m.evaluation, hash, seat, m.sequence);
    }
  } catch (e) {
    if (controller.signal.aborted) return;
    state.thinking = null;
    state.busy = false;
    explain(e);
    render();
    return;
  }
  if (state.thinking !== controller) return;
  if (!last) {
    state.thinking = null;
    state.busy = false;
    say("The service gave no answer for the AI seat: start a new game or undo.", true);
    render();
    return;
  }
  keep(g.evals, index, last);
  // a watchable pace: the move waits until its time, and while the game is paused
  const wait = state.lastMoveAt + paceMs() - performance.now();
  if (wait > 0) await delay(wait, controller.signal);
  if (!(await gate(controller.signal)) || state.thinking !== controller) return;
  state.thinking = null;
  const applied = await apply(last.bestAction!);
  if (applied) {
    if (state.steps > 0) state.steps--;
    say(`${SEAT_NAMES[seat]} (AI): ${describe(applied)}`);
  }
  await advance();
}

/** A short search (fixed seed and iterations) for the seat to act at the end of a record. */
async function evaluate(record: GameRecord, iterations: number, signal?: AbortSignal): Promise<Evaluation> {
  const reply = await client.suggestAction({
    source: fromRecord(record), budget: { case: "limits", value: { iterations: BigInt(iterations) } },
    seed: 1n, maxCandidates: CANDIDATES,
  }, { signal });
  return reply.evaluation!;
}

/** An evaluation good enough for the graph and the replay viewer. */
const settled = (ev: Evaluation | undefined) =>
  !!ev && (ev.stoppedBy === "single-action" || ev.iterations >= BigInt(EVAL_ITERATIONS.move));

/** The evaluation bar after each move (dropped when the position changes). */
async function quickEvaluation(): Promise<void> {
  const g = state.game!;
  const hash = g.hash, index = g.record.actions.length, controller = new AbortController();
  state.quick = controller;
  render();
  try {
    const ev = await evaluate(g.record, EVAL_ITERATIONS.move, controller.signal);
    if (state.game === g && g.hash === hash) keep(g.evals, index, ev);
    if (state.game === g && g.hash === hash && !state.analysis) showEvaluation(ev, hash, g.position.toAct!, 0);
  } catch (e) { /* the bar keeps its last value */ }
  if (state.quick === controller) state.quick = null;
  renderEvaluation();
}

/** On demand: a 3-second streaming analysis for the seat to act. */
async function analyse(): Promise<void> {
  if (state.analysis) { stopAnalysis(); render(); return; }
  const position = currentPosition(), record = currentRecord(), hash = currentHash();
  if (!position || !record || position.phase === Phase.OVER) return;
  const seat = position.toAct!;
  state.quick?.abort(); // the analysis says more
  state.quick = null;
  const controller = new AbortController();
  state.analysis = controller;
  render();
  try {
    const reports = client.analyzePosition({
      source: fromRecord(record), budget: { case: "limits", value: { time: durationFromMs(3000) } }, seed: 1n,
      maxCandidates: CANDIDATES, reportInterval: durationFromMs(250),
    }, { signal: controller.signal });
    for await (const m of reports) if (m.evaluation) showEvaluation(m.evaluation, hash, seat, m.sequence);
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.analysis === controller) state.analysis = null;
  render();
}

function currentPosition(): Position | null {
  if (state.mode === "replay") return replayPosition;
  return state.game?.position ?? null;
}

/** The hash of the position shown: an evaluation of any other is never shown. */
function currentHash(): string {
  return (state.mode === "replay" ? state.replay?.hash : state.game?.hash) ?? "";
}

/** The record that reaches the position shown (in the replay viewer: cut at its action). */
function currentRecord(): GameRecord | null {
  const r = state.replay;
  if (state.mode === "replay") return r ? cut(r.record, r.index) : null;
  return state.game?.record ?? null;
}

/** The service's standing and result for the position shown. */
function currentScores(): { standing?: Standing; result?: GameResult } {
  return (state.mode === "replay" ? state.replay : state.game) ?? {};
}

/** The evaluation of the position shown, if there is one. */
function visibleEvaluation(): Shown | null {
  const shown = state.evaluation;
  return shown && shown.hash === currentHash() ? shown : null;
}

async function undo(): Promise<void> {
  const g = state.game;
  if (!g || state.mode !== "play") return;
  stopThinking();
  stopAnalysis();
  stopFilling();
  state.evaluation = null; // never the old position's evaluation over the new position
  state.busy = true;
  const actions = g.record.actions;
  let i = actions.length - 1;
  while (i >= 0 && !isHuman(actions[i].seat)) i--;
  if (i < 0) { say("Nothing to undo: no human seat has moved yet."); return advance(); }
  const record = cut(g.record, i);
  render();
  try {
    const reply = await client.validateRecord({ source: fromRecord(record) });
    Object.assign(g, { record, position: reply.position!, hash: reply.positionHash, standing: reply.standing,
      result: undefined });
    for (const k of [...g.evals.keys()]) if (k > i) g.evals.delete(k);
  } catch (e) {
    state.busy = false;
    explain(e);
    render();
    return;
  }
  say(`undone: ${describe(actions[i])}`);
  await advance();
}

/** The cell the ghost is drawn on: the one chosen, else the one under the mouse. */
const focusCell = () => state.selected ?? state.hover;

function rotate(): void {
  if (!state.tile) return;
  const rots = rotationsAt(focusCell());
  if (rots.length) {
    const current = ghostRotation();
    state.rotation = rots[(rots.indexOf(current) + 1) % rots.length];
  } else {
    state.rotation = (state.rotation + 1) % 4;
  }
  render();
}

/** The legal actions of the chosen tile at a cell (any rotation). */
function actionsAt(cell: Cell | null): Action[] {
  if (!cell || !state.tile) return [];
  return state.legal.filter((a) => {
    const p = placement(a);
    return p && p.tile === state.tile && p.x === cell.x && p.y === cell.y;
  });
}
function rotationsAt(cell: Cell | null): number[] {
  const out = actionsAt(cell).map((a) => placement(a)!.rotation);
  return [...new Set(out)].sort();
}
/** The rotation the tile is drawn at on `cell`: the one chosen, else the next legal one there. */
function ghostRotation(cell: Cell | null = focusCell()): number {
  const rots = rotationsAt(cell);
  if (!rots.length || rots.includes(state.rotation)) return state.rotation;
  return rots.find((r) => r > state.rotation) ?? rots[0];
}

/** A human may place a tile now. */
function placing(): boolean {
  const g = state.game;
  return state.mode === "play" && !!g && isHuman(g.position.toAct) && !state.thinking && !state.busy &&
    g.position.phase === Phase.TURN && !!state.tile;
}

/** A tap or a click on a cell. The mouse places at once; a finger or a pen first chooses
 *  the cell (the tile is drawn there, Rotate turns it), and a second tap places. */
function onTap(cell: Cell, pointerType: string): void {
  const g = state.game;
  if (state.mode !== "play" || !g || !isHuman(g.position.toAct) || state.thinking || state.busy) return;
  if (state.choices) { // a tap on a cell to fill shows the next way of filling
    const cells = state.choices.flatMap(fillsOf);
    if (cells.some((f) => f.x === cell.x && f.y === cell.y)) { state.choice = (state.choice + 1) % state.choices.length; renderBoard(); }
    return;
  }
  if (g.position.phase !== Phase.TURN || !state.tile) {
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
function commit(cell: Cell): void {
  const g = state.game;
  if (!g || !placing()) return;
  const rotation = ghostRotation(cell); // the one drawn there
  const options = actionsAt(cell).filter((a) => placement(a)!.rotation === rotation);
  if (options.length === 1) { void humanMove(options[0]); return; }
  if (options.length > 1) {
    state.choices = options;
    state.choice = 0;
    state.selected = null;
    render();
    $("choices").scrollIntoView({ block: "nearest" });
    return;
  }
  // not a legal move: the service says why
  state.selected = null;
  void humanMove(create(ActionSchema, {
    seat: g.position.toAct, kind: { case: "place", value: { tile: state.tile!, x: cell.x, y: cell.y, rotation } },
  }));
}

function onHover(cell: Cell | null): void {
  state.hover = cell;
  $("cell-readout").textContent = cell ? `(${cell.x},${cell.y})` : "";
  renderBoard();
}

/** Arrow keys on the board: move the chosen cell (to the nearest target in that direction, else one cell). */
function moveCursor(key: string): void {
  const [dx, dy] = ({ ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] } as Record<string, number[]>)[key];
  const targets = [...boardTargets().keys()].map((k) => k.split(",").map(Number));
  const from = state.selected ?? state.hover;
  let next: Cell | null = null;
  if (!from) {
    next = targets.length ? { x: targets[0][0], y: targets[0][1] } : { x: 0, y: 0 };
  } else {
    const ahead = targets.filter(([x, y]) => (x - from.x) * dx + (y - from.y) * dy > 0)
      .sort((a, b) => Math.hypot(a[0] - from.x, a[1] - from.y) - Math.hypot(b[0] - from.x, b[1] - from.y));
    next = ahead.length ? { x: ahead[0][0], y: ahead[0][1] } : { x: from.x + dx, y: from.y + dy };
  }
  state.selected = next;
  $("cell-readout").textContent = `(${next.x},${next.y})`;
  viewport.reveal(next);
  render();
}

// ---------------------------------------------------------------- files

/** Downloads the record as the service writes it (cacao-record/1, canonical). */
async function save(): Promise<void> {
  const record = state.mode === "replay" ? state.replay?.record : state.game?.record;
  if (!record) return;
  let text: string;
  try {
    text = (await client.validateRecord({ source: fromRecord(record) })).recordJson;
  } catch (e) {
    explain(e);
    return;
  }
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = `cacao-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.json`;
  link.click();
  say(`saved ${record.actions.length} actions as ${link.download}`);
}

async function load(file: File | undefined): Promise<void> {
  if (!file) return;
  const text = await file.text();
  $<HTMLInputElement>("load-file").value = "";
  await openRecord(text);
}

/** Checks a cacao-record/1 text with the service, which reads it, and opens it in the replay viewer. */
async function openRecord(text: string): Promise<void> {
  try {
    const check = await client.validateRecord({ source: { case: "recordJson", value: text } });
    if (!check.valid || !check.record) {
      say(`The record is not valid: ${check.errorIndex === -1 ? "its header" : `action ${check.errorIndex}`} does not replay.`,
        true, check.errorMessage);
      return;
    }
    if (!haveRules()) await loadLevels();
    await openReplay(check.record, new Map(), 0);
  } catch (e) {
    explain(e);
  }
}
(window as any).cacaoOpenRecord = openRecord;

/** The replay viewer on `record` at action `index`, with the evaluations already known. */
async function openReplay(record: GameRecord, evals: Map<number, Evaluation>, index: number): Promise<void> {
  stopThinking();
  stopAnalysis();
  stopFilling();
  state.replay = { record, index, evals: new Map(evals), hash: "" };
  state.mode = "replay";
  $("setup").hidden = true;
  say(`replaying ${record.actions.length} actions; arrow keys step`);
  await replayGo(index);
  void fillGraph();
}

// ---------------------------------------------------------------- replay

let replayPosition: Position | null = null;

function replayStep(step: number): void {
  const r = state.replay;
  if (!r) return;
  void replayGo(Math.max(0, Math.min(r.record.actions.length, r.index + step)));
}

async function replayGo(index: number): Promise<void> {
  const r = state.replay!;
  r.index = index;
  stopAnalysis();
  const record = cut(r.record, index);
  let reply;
  try {
    reply = await client.validateRecord({ source: fromRecord(record) });
  } catch (e) {
    explain(e);
    return;
  }
  if (r.index !== index || state.replay !== r) return;
  const position = reply.position!;
  replayPosition = position;
  Object.assign(r, { standing: reply.standing, result: reply.result, hash: reply.positionHash });
  const known = r.evals.get(index);
  state.evaluation = known && settled(known) ? { ev: known, hash: r.hash, seat: position.toAct ?? 0, seq: 0 } : null;
  render();
  if (!state.evaluation && position.phase !== Phase.OVER) {
    const hash = r.hash;
    try {
      const ev = await evaluate(record, EVAL_ITERATIONS.replay);
      keep(r.evals, index, ev);
      if (state.replay === r && r.hash === hash) showEvaluation(ev, hash, position.toAct!, 0);
      renderGraph();
    } catch (e) { explain(e); }
  }
}

/** Evaluates, one after the other, the positions the graph has no good evaluation of
 *  (in the replay viewer and at the end of a game), as the replay viewer evaluates. */
async function fillGraph(): Promise<void> {
  stopFilling();
  const controller = new AbortController();
  state.filling = controller;
  const source = state.mode === "replay" ? state.replay : state.game;
  if (!source) return;
  const record = source.record, evals = source.evals, n = record.actions.length;
  const finished = !!(source.result ?? record.result);
  try {
    for (let i = 0; i <= n; i++) {
      if (controller.signal.aborted) return;
      if ((i === n && finished) || settled(evals.get(i))) continue;
      const ev = await evaluate(cut(record, i), EVAL_ITERATIONS.replay, controller.signal);
      if (controller.signal.aborted) return;
      keep(evals, i, ev);
      renderGraph();
    }
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.filling === controller) state.filling = null;
  renderGraph();
}

function playFromReplay(): void {
  const r = state.replay;
  if (!r) return;
  stopFilling();
  const record = cut(r.record, r.index);
  const seats = [...Array(record.players).keys()].map((s) =>
    $<HTMLSelectElement>(`seat-${s}`).value);
  const evals = new Map([...r.evals].filter(([k]) => k <= r.index));
  state.game = { record, position: replayPosition!, hash: r.hash, seats, seed: 1, standing: r.standing, evals };
  state.mode = "play";
  state.paused = false;
  say(`playing on from action ${r.index}; seats: ${seats.join(", ")}`);
  advance().catch(explain);
}

// ---------------------------------------------------------------- drawing

/** Shows a message: one sentence, and optionally the details for developers. */
function say(text: string, error = false, details = ""): void {
  state.message = text;
  const box = $("message");
  box.replaceChildren();
  box.className = error ? "error" : "";
  const sentence = document.createElement("span");
  sentence.className = "sentence";
  sentence.textContent = text;
  box.appendChild(sentence);
  if (details) {
    const more = document.createElement("details");
    more.className = "dev";
    const summary = document.createElement("summary");
    summary.textContent = "details";
    const code = document.createElement("code");
    code.textContent = details;
    more.append(summary, code);
    box.appendChild(more);
  }
  if (!error) {
    const li = document.createElement("li");
    li.textContent = text;
    $("log").prepend(li);
  }
}

/** Shows why a call failed: a sentence for the player, the service's words in the details. */
function explain(e: unknown): void {
  const { sentence, details } = plainError(e);
  say(sentence, true, details);
}

function showEvaluation(ev: Evaluation, hash: string, seat: number, seq: number): void {
  state.evaluation = { ev, hash, seat, seq };
  renderEvaluation();
  if (state.heat !== "off") renderBoard();
}

function render(): void {
  document.body.dataset.mode = state.mode;
  $("replay-bar").hidden = state.mode !== "replay";
  renderBoard();
  renderToolbar();
  renderSeats();
  renderChoices();
  renderEvaluation();
  renderGraph();
  $("analyse").textContent = state.analysis ? "Stop analysis" : "Analyse";
  const g = state.game;
  $("thinking").hidden = !state.thinking || state.held;
  const r = state.replay;
  if (state.mode === "replay" && r) {
    const n = r.record.actions.length;
    const slider = $<HTMLInputElement>("r-slider");
    slider.max = String(n);
    slider.value = String(r.index);
    const last = r.index > 0 ? r.record.actions[r.index - 1] : null;
    $("r-label").textContent = `${r.index} / ${n}` + (last ? ` — ${SEAT_NAMES[last.seat]}: ${describe(last)}` : "");
  }
  const p = currentPosition();
  let status = "";
  if (p) {
    const result = currentScores().result;
    if (p.phase === Phase.OVER) {
      status = "Game over" + (result ? `: ${result.winners.map((s) => SEAT_NAMES[s]).join(" and ")} win${result.winners.length > 1 ? "" : "s"}` : "");
    }
    else status = `Turn ${p.turn + 1}: ${SEAT_NAMES[p.toAct ?? 0]} to ${p.phase === Phase.RESOLVE ? "choose a result" : "place a tile"}`;
    if (state.mode === "play" && g && !isHuman(p.toAct) && p.phase !== Phase.OVER) status += ` (AI ${seatKind(p.toAct!).replace("time:", "")})`;
    if (state.held) status += " — paused";
  }
  $("status").textContent = status;
  $("status").style.borderColor = p && p.phase !== Phase.OVER ? SEAT_COLOURS[p.toAct ?? 0] : "#555";
  renderResult();
}

/** The cells the chosen tile may go to (a human's turn, no fill choice open). */
function boardTargets(): Map<string, "place" | "overbuild"> {
  const targets = new Map<string, "place" | "overbuild">();
  if (!placing() || state.choices) return targets;
  for (const a of state.legal) {
    const q = placement(a);
    if (q?.tile === state.tile) targets.set(`${q.x},${q.y}`, a.kind.case === "place" ? "place" : "overbuild");
  }
  return targets;
}

/** The AI's candidates stay hidden while it plays a human: they would show its hand. */
function candidatesHidden(seat: number): boolean {
  return state.mode === "play" && !isHuman(seat) && !!state.game?.seats.includes("human");
}

function renderBoard(): void {
  const p = currentPosition();
  const svg = $("board") as unknown as SVGSVGElement;
  if (!p) { svg.replaceChildren(); return; }
  const targets = boardTargets();
  let ghost = null;
  const focus = focusCell();
  if (placing() && focus && !state.choices) {
    const legal = targets.has(`${focus.x},${focus.y}`);
    ghost = { tile: state.tile!, x: focus.x, y: focus.y, rotation: ghostRotation(), seat: p.toAct ?? 0, legal,
      chosen: focus === state.selected };
  }
  let fills = null;
  if (state.choices?.length) { // the pending tile, the cells it closes, and one way of filling them
    const first = placement(state.choices[0])!;
    ghost = { tile: first.tile, x: first.x, y: first.y, rotation: first.rotation, seat: p.toAct ?? 0, legal: true, pending: true };
    const cells = new Map<string, Cell>();
    for (const a of state.choices) for (const f of fillsOf(a)) cells.set(`${f.x},${f.y}`, { x: f.x, y: f.y });
    fills = { cells: [...cells.values()], preview: fillsOf(state.choices[state.choice]) };
  }
  const actions = (state.mode === "replay" ? state.replay?.record.actions.slice(0, state.replay.index)
    : state.game?.record.actions) ?? [];
  const last = [...actions].reverse().map(placement).find((q) => q);
  const marked = last ? [{ x: last.x, y: last.y },
    ...("fills" in last ? last.fills : []).map((f) => ({ x: f.x, y: f.y }))] : [];
  const temples = currentScores().standing?.temples ?? [];
  const shown = visibleEvaluation();
  const heat = shown && state.heat !== "off" && !state.choices && !candidatesHidden(shown.seat)
    ? { evaluation: shown.ev, by: state.heat } : null;
  const selected = placing() ? state.selected : null;
  viewport.setBase(drawBoard(svg, { position: p, targets, ghost, marked, temples, fills, heat, selected }));
}

function miniTile(tile: WorkerTile, seat: number, rotation = 0, cls = ""): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
  svg.setAttribute("class", `mini ${cls}`);
  workerTile(svg, tile, seat, rotation, 0, 0);
  return svg;
}

/** The hand of the human to act beside the board, Rotate and Place, the zoom, the
 *  heat map's measure, and for games of AIs only, their pace. */
function renderToolbar(): void {
  const p = currentPosition();
  const tray = $("tray");
  tray.replaceChildren();
  const mine = !!p && state.mode === "play" && isHuman(p.toAct) && p.phase === Phase.TURN && !state.thinking;
  // the hand of the human to place, or while others play the hand of the (first) human seat, dimmed:
  // the tray keeps its room, so that the board does not move from turn to turn
  const seat = p && (isHuman(p.toAct) ? p.toAct! : state.game?.seats.indexOf("human") ?? -1);
  if (p && state.mode === "play" && seat !== null && seat >= 0) {
    const hand = p.seats[seat].hand, usable = mine ? handTiles() : [];
    hand.forEach((t, k) => {
      const chosen = mine && t === state.tile && hand.indexOf(t) === k; // the first of a kind
      const mini = miniTile(t, seat, chosen ? ghostRotation() : 0, chosen ? "chosen" : mine ? "" : "waiting");
      mini.dataset.tile = workerName(t);
      mini.setAttribute("role", "button");
      mini.setAttribute("aria-label", `tile ${workerName(t)}${chosen ? " (chosen)" : ""}`);
      if (usable.includes(t)) {
        mini.classList.add("choosable");
        mini.setAttribute("tabindex", "0");
        const choose = () => { state.tile = t; state.rotation = 0; render(); };
        mini.addEventListener("click", choose);
        mini.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
      }
      tray.appendChild(mini);
    });
  }
  tray.hidden = state.mode !== "play";
  $("rotate").toggleAttribute("disabled", !mine);
  const sel = state.selected;
  const canPlace = placing() && !!sel && actionsAt(sel).length > 0 && !state.choices;
  $("place").hidden = !canPlace;
  if (canPlace && sel) $("place").textContent = `Place at (${sel.x},${sel.y})`;
  $("pace-group").hidden = !(state.mode === "play" && aiOnly());
  $("pause").textContent = state.paused ? "Resume" : "Pause";
  $("pause").setAttribute("aria-pressed", String(state.paused));
  $("step").toggleAttribute("disabled", !state.paused || state.over);
}

/** "+4", "−10": a signed number of gold. */
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

function renderSeats(): void {
  const p = currentPosition();
  const box = $("seats");
  box.replaceChildren();
  if (!p) return;
  const { standing } = currentScores();
  const track = waterTrack();
  p.seats.forEach((s, i) => {
    const score = standing?.seats[i];
    const div = document.createElement("div");
    div.className = "seat" + (p.toAct === i && p.phase !== Phase.OVER ? " to-act" : "");
    div.dataset.seat = String(i);
    div.style.borderColor = SEAT_COLOURS[i];
    const who = state.mode === "play" ? (isHuman(i) ? "human" : `AI ${seatKind(i).replace("time:", "")}`) : "";
    const waterGold = track.length ? track[s.water] : undefined;
    div.innerHTML = `<div class="seat-head">${seatBadge(i, 14)}
      <b style="color:${SEAT_INK[i]}">${SEAT_NAMES[i]}</b> <span class="who">${who}</span>
      ${score ? `<span class="if-ended" title="gold ${s.gold} ${signed(score.temples)} temples ${signed(score.sun)} sun ${signed(score.water)} water">${p.phase === Phase.OVER ? "final" : "if it ended now"}: <b>${score.total}</b></span>` : ""}</div>
      <div class="stats"><span title="gold held"><i class="tok gold"></i><b class="gold">${s.gold}</b> gold</span>
      <span title="cacao (at most ${maxCacao()}; breaks ties)"><i class="tok cacao"></i><b>${s.cacao}</b> cacao</span>
      <span title="sun tokens (at most ${maxSun()})"><i class="tok sun"></i><b>${s.sun}</b> sun</span>
      <span class="water" title="the water carrier on space ${s.water} of ${Math.max(track.length - 1, 0)}: worth ${waterGold ?? "?"} gold at the end"><i class="tok water"></i>water <b>${waterGold === undefined ? s.water : signed(waterGold)}</b> gold</span>
      <span title="tiles left in the draw pile">pile ${s.pileCount}</span></div>`;
    const hand = document.createElement("div");
    hand.className = "hand";
    const shown = state.mode === "replay" || isHuman(i) || p.phase === Phase.OVER;
    if (shown) {
      const choosable = state.mode === "play" && p.toAct === i && isHuman(i) && p.phase === Phase.TURN;
      const usable = handTiles();
      s.hand.forEach((t, k) => {
        const mini = miniTile(t, i, 0, choosable && t === state.tile && s.hand.indexOf(t) === k ? "chosen" : "");
        mini.dataset.tile = workerName(t);
        if (choosable && usable.includes(t)) {
          mini.classList.add("choosable");
          mini.addEventListener("click", () => { state.tile = t; state.rotation = 0; render(); });
        }
        hand.appendChild(mini);
      });
    } else {
      hand.textContent = `${s.handCount} tiles in hand`;
    }
    div.appendChild(hand);
    box.appendChild(div);
  });
  $("scores").innerHTML = standing ? scoreTable(standing) : "";
  $("p-scores").hidden = p.phase === Phase.OVER; // the result shows the same table
  const display = $("display");
  display.replaceChildren();
  for (const t of p.display) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
    svg.setAttribute("class", "mini");
    jungleTile(svg, t, 0, 0);
    display.appendChild(svg);
  }
  $("deck").textContent = `${p.jungleDeckCount} in the jungle deck`;
  const list = $("temples");
  list.replaceChildren();
  for (const t of standing?.temples ?? []) {
    const li = document.createElement("li");
    const most = Math.max(...t.workers);
    li.innerHTML = `temple (${t.x},${t.y}): ` + (most === 0 ? "nobody yet" : t.workers.map((n, s) => n ?
      `<span style="color:${SEAT_INK[s]}" class="${n === most ? "lead" : ""}">${SEAT_SYMBOLS[s]} ${SEAT_NAMES[s]} ${n}${t.gold[s] ? ` (${signed(t.gold[s])})` : ""}</span>` : "")
      .filter(Boolean).join(", "));
    list.appendChild(li);
  }
}

/** Each seat's gold by part (held, temples, sun, water) and the total: the final result's
 *  gold at the end, what the seat would end with now before it. */
function scoreTable(standing: Standing, result?: GameResult): string {
  const rows = standing.seats.map((s) => {
    const won = result?.winners.includes(s.seat);
    return `<tr data-seat="${s.seat}"${won ? ' class="won" title="wins"' : ""}><th scope="row">${seatBadge(s.seat)} <span style="color:${SEAT_INK[s.seat]}">${SEAT_NAMES[s.seat]}</span></th>
      <td class="gold">${s.gold}</td><td class="temples">${signed(s.temples)}</td><td class="sun">${signed(s.sun)}</td>
      <td class="water">${signed(s.water)}</td><td class="total"><b>${s.total}</b></td><td class="cacao">${s.cacao}</td></tr>`;
  }).join("");
  return `<table class="score-table"><thead><tr><th scope="col">seat</th><th scope="col" title="gold held">gold</th>
    <th scope="col" title="the temples' majorities">temples</th><th scope="col" title="gold for the sun tokens">sun</th>
    <th scope="col" title="the water carrier's space">water</th><th scope="col">total</th><th scope="col" title="breaks a tie">cacao</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

function renderChoices(): void {
  const box = $("choices");
  box.replaceChildren();
  const p = state.game?.position;
  if (state.mode !== "play" || !p || !isHuman(p.toAct) || state.thinking) return;
  let offered: Action[] = state.choices ?? [];
  let title = "Which display tile goes where?";
  if (!state.choices) {
    offered = state.legal.filter((a) => a.kind.case === "resolve" || a.kind.case === "discard");
    title = p.phase === Phase.RESOLVE ? `${SEAT_NAMES[p.toAct!]}: choose your result` : "No placement: discard a tile";
    const overbuilds = state.legal.filter((a) => a.kind.case === "overbuild");
    if (overbuilds.length && state.legal.some((a) => a.kind.case === "place")) {
      const hint = document.createElement("p");
      hint.textContent = "Overbuild (1 sun): choose one of your own tiles (ringed).";
      box.appendChild(hint);
    }
  }
  if (!offered.length) return;
  const h = document.createElement("h3");
  h.textContent = title;
  box.appendChild(h);
  if (state.choices) {
    const q = placement(state.choices[0])!;
    const note = document.createElement("p");
    note.className = "small";
    note.textContent = `Your ${workerName(q.tile)} at (${q.x},${q.y}) closes the cells marked ? on the board; ` +
      "each way is drawn there as you point at it (tap once to see it, again to play it).";
    box.appendChild(note);
  }
  let pointer = "";
  offered.forEach((a, i) => {
    const b = document.createElement("button");
    b.className = "choice" + (state.choices && i === state.choice ? " previewed" : "");
    b.textContent = state.choices ? fillsOf(a).map(describeFill).join(", ") : describe(a);
    if (state.choices) {
      const preview = () => { if (state.choice !== i) { state.choice = i; renderBoard(); markPreviewed(); } };
      b.onpointerenter = (e) => { if (e.pointerType === "mouse") preview(); };
      b.onfocus = preview;
      b.onpointerdown = (e) => { pointer = e.pointerType; };
      b.onclick = () => {
        const first = pointer !== "" && pointer !== "mouse" && state.choice !== i;
        pointer = "";
        if (first) { preview(); return; }
        void humanMove(a);
      };
    } else {
      b.onclick = () => void humanMove(a);
    }
    box.appendChild(b);
  });
  if (state.choices) {
    const c = document.createElement("button");
    c.textContent = "cancel";
    c.onclick = () => { state.choices = null; render(); };
    box.appendChild(c);
  }
}

const describeFill = (f: Fill) => `${jungleName(f.tile)} to (${f.x},${f.y})`;

function markPreviewed(): void {
  document.querySelectorAll("#choices button.choice").forEach((b, i) => b.classList.toggle("previewed", i === state.choice));
}

function renderEvaluation(): void {
  const shown = visibleEvaluation();
  const bar = $("evalbar"), legend = $("evallegend");
  const details = $("evaluation");
  bar.replaceChildren();
  legend.replaceChildren();
  details.replaceChildren();
  details.dataset.hash = shown?.hash ?? "";
  const p = currentPosition();
  if (!shown || !shown.ev.seats.length) {
    const searching = (state.thinking || state.analysis || state.quick || state.mode === "replay") && p?.phase !== Phase.OVER;
    details.textContent = p?.phase === Phase.OVER ? "the game is over"
      : shown ? "a single action: nothing to search" : searching ? "evaluating this position…" : "no evaluation yet: press Analyse";
    bar.classList.add("empty");
    return;
  }
  bar.classList.remove("empty");
  const { ev, seat } = shown;
  for (const s of ev.seats) {
    const part = document.createElement("div");
    const w = s.winProbability;
    part.style.flexGrow = String(Math.max(w, 0.001));
    part.style.background = SEAT_COLOURS[s.seat];
    part.style.color = SEAT_ON[s.seat];
    part.className = "evalpart";
    part.dataset.seat = String(s.seat);
    part.textContent = w >= 0.12 ? `${SEAT_SYMBOLS[s.seat]} ${Math.round(w * 100)}%` : "";
    part.title = `${SEAT_NAMES[s.seat]}: win ${(w * 100).toFixed(1)}%, expected gold ${s.expectedGold.toFixed(1)}`;
    bar.appendChild(part);
    const label = document.createElement("span");
    label.dataset.seat = String(s.seat);
    label.innerHTML = `${seatBadge(s.seat)} ${SEAT_NAMES[s.seat]} ${w < 0.005 && w > 0 ? "<1" : Math.round(w * 100)}%`;
    legend.appendChild(label);
  }
  const head = document.createElement("div");
  head.className = "evalhead";
  head.dataset.sequence = String(shown.seq);
  head.dataset.iterations = String(ev.iterations);
  head.textContent = `${ev.final ? "final" : "searching…"} ${Number(ev.iterations).toLocaleString()} iterations, for ${SEAT_NAMES[seat]}`;
  details.appendChild(head);
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>seat</th><th>win</th><th>gold</th></tr>" + ev.seats.map((s) =>
    `<tr><td style="color:${SEAT_INK[s.seat]}">${SEAT_SYMBOLS[s.seat]} ${SEAT_NAMES[s.seat]}</td>
     <td>${(s.winProbability * 100).toFixed(0)}%</td><td>${s.expectedGold.toFixed(1)}</td></tr>`).join("");
  details.appendChild(table);
  if (candidatesHidden(seat)) {
    const note = document.createElement("p");
    note.className = "small";
    note.textContent = "The AI's candidate moves stay hidden: they would show its hand.";
    details.appendChild(note);
    return;
  }
  const r = state.replay;
  const next = state.mode === "replay" && r ? r.record.actions[r.index] : undefined;
  if (next) {
    const played = document.createElement("p");
    const best = ev.bestAction && sameAction(ev.bestAction, next);
    played.innerHTML = `<b>played next:</b> ${describe(next)}${best ? " — the AI's choice too" : ""}`;
    details.appendChild(played);
  }
  if (state.heat !== "off" && ev.candidates.some((c) => c.action && placement(c.action))) {
    const note = document.createElement("p");
    note.className = "small heat-note";
    note.textContent = `On the board: each cell's ${state.heat === "visits" ? "share of the search's visits" : "best win chance"}` +
      " (darker is more), ★ the AI's choice.";
    details.appendChild(note);
  }
  const ol = document.createElement("ol");
  ol.className = "candidates";
  for (const c of ev.candidates.slice(0, LISTED)) {
    const action = c.action;
    if (!action) continue;
    const li = document.createElement("li");
    li.textContent = `${describe(action)} — ${(c.winProbability * 100).toFixed(0)}% win, ${Number(c.visits).toLocaleString()} visits`;
    const g = state.game;
    if (state.mode === "play" && g && isHuman(g.position.toAct) && state.legal.some((a) => sameAction(a, action))) {
      const b = document.createElement("button");
      b.textContent = "play";
      b.onclick = () => void humanMove(action);
      li.appendChild(b);
    }
    ol.appendChild(li);
  }
  details.appendChild(ol);
}

/** The graph's points: each kept evaluation, and the result at the end (the winners share 1). */
function graphPoints(evals: Map<number, Evaluation>, players: number, n: number, result?: GameResult): GraphPoint[] {
  const points: GraphPoint[] = [];
  for (const [index, ev] of evals) {
    if (!ev.seats.length || index > n) continue;
    const win = Array(players).fill(0);
    for (const s of ev.seats) win[s.seat] = s.winProbability;
    points.push({ index, win });
  }
  if (result) points.push({ index: n, win: [...Array(players).keys()].map((s) => (result.winners.includes(s) ? 1 / result.winners.length : 0)) });
  return points;
}

function renderGraph(): void {
  const panel = $("p-graph");
  const r = state.replay, g = state.game;
  const source = state.mode === "replay" ? r : state.mode === "play" && g && (state.over || aiOnly()) ? g : null;
  panel.hidden = !source;
  if (!source) return;
  const record = source.record, n = record.actions.length;
  const result = source === r ? (r!.result && r!.index === n ? r!.result : record.result) : g!.result;
  const points = graphPoints(source.evals, record.players, n, result ?? undefined);
  const current = state.mode === "replay" && r ? r.index : null;
  drawGraph($("graph"), points, n, record.players, current, (index) => {
    if (state.mode === "replay") { void replayGo(index); return; }
    if (state.over && g) void openReplay(g.record, g.evals, index);
  });
  $("graph").dataset.points = String(points.length);
  $("graph").dataset.filling = String(!!state.filling);
}

/** The result at the end: who won, and each seat's gold by part (the service's standing). */
function renderResult(): void {
  const box = $("result");
  const p = currentPosition();
  const { result, standing } = currentScores();
  box.hidden = !(p?.phase === Phase.OVER && result);
  if (box.hidden || !result) return;
  const winners = result.winners.map((s) => SEAT_NAMES[s]).join(" and ");
  const gold = result.seats.find((s) => s.seat === result.winners[0])?.gold;
  box.innerHTML = `<h2>${winners} win${result.winners.length > 1 ? "" : "s"} with ${gold} gold</h2>` +
    (standing ? scoreTable(standing, result) : result.seats.map((s) =>
      `<span style="color:${SEAT_INK[s.seat]}">${SEAT_NAMES[s.seat]}: ${s.gold} gold, ${s.cacao} cacao</span>`).join("<br>")) +
    `<p class="small">gold held, then the end's scoring: the temples' majorities, gold for sun tokens, the water carrier's space; cacao breaks a tie.</p>`;
}

void init();
