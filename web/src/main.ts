// The board page: set up a game, play it against the AI, analyse, undo, save, load and replay.
// Every rule question (legal actions, resolutions, scores, results, why a move is illegal,
// the record's file form) goes to the service; the tiles' names and faces come from it too.
import {
  ActionSchema, Code, GameRecordSchema, Phase, clone, create, durationFromMs, explainError, needsToken,
} from "@cacaoai/client";
import type {
  Action, Evaluation, GameRecord, GameResult, Position, Standing, WorkerTile,
} from "@cacaoai/client";
import { client, fromRecord, setToken, whenRetrying } from "./api";
import { CELL, SEAT_COLOURS, SEAT_NAMES, drawBoard, jungleTile, workerTile } from "./board";
import { describe, haveRules, maxCacao, maxSun, placement, sameAction, setRules, waterTrack, workerName } from "./game";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

type SeatKind = "human" | string; // "human" or an AI level ("casual", "time:2")
/** A game being played: its record (the source of every request), the position
 *  it reaches, and the service's standing and result there. */
interface Game {
  record: GameRecord; position: Position; hash: string; seats: SeatKind[]; seed: number;
  standing?: Standing; result?: GameResult;
}
/** A record in the replay viewer, at action `index`. */
interface Replay {
  record: GameRecord; index: number; evals: Map<number, Evaluation>;
  standing?: Standing; result?: GameResult; hash: string;
}

const state = {
  mode: "setup" as "setup" | "play" | "replay",
  levels: [] as string[],
  game: null as Game | null,
  replay: null as Replay | null,
  legal: [] as Action[],
  tile: null as WorkerTile | null, // the hand tile chosen for placing
  rotation: 0,
  hover: null as { x: number; y: number } | null,
  choices: null as Action[] | null, // several actions for one click (which display tile goes where)
  thinking: null as AbortController | null,
  analysis: null as AbortController | null,
  quick: null as AbortController | null, // the evaluation bar's search
  evaluation: null as Evaluation | null,
  evalSeq: 0,
  message: "",
  busy: false, // a move is on its way: the page takes no other
  /** The game being played is over. */
  get over(): boolean { return state.game?.position.phase === Phase.OVER; },
};
// for tests and the curious: the page's state
(window as any).cacao = state;

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
      say(`${explainError(e).code}: this server needs a token: enter it under New game, or open the page as ` +
          `${location.origin}/#token=YOUR_TOKEN`, true);
    } else {
      say(`cannot reach the service: ${explainError(e).message}`, true);
    }
  }
}

async function init(): Promise<void> {
  const token = takeToken();
  setToken(token);
  whenRetrying((r) => {
    if (r.method !== "AnalyzePosition") return; // a background evaluation waits quietly
    say(r.error.code === Code.ResourceExhausted ? "the service is busy with other searches: asking again shortly"
      : "the service does not answer: asking again shortly");
  });
  $<HTMLInputElement>("token").value = token;
  await loadLevels();
  buildSetup();
  $("new").onclick = () => showSetup();
  $("undo").onclick = () => undo();
  $("analyse").onclick = () => analyse();
  $("save").onclick = () => save();
  $("load").onclick = () => $<HTMLInputElement>("load-file").click();
  $<HTMLInputElement>("load-file").onchange = (e) => load((e.target as HTMLInputElement).files?.[0]);
  $("rotate").onclick = () => rotate();
  document.addEventListener("keydown", (e) => {
    if (e.key === "r" || e.key === "R") rotate();
    if (e.key === "Escape") { state.choices = null; render(); }
    if (state.mode === "replay" && e.key === "ArrowRight") replayStep(1);
    if (state.mode === "replay" && e.key === "ArrowLeft") replayStep(-1);
  });
  $("board").addEventListener("wheel", (e) => { if (state.tile) { e.preventDefault(); rotate(); } }, { passive: false });
  $("board").addEventListener("mouseleave", () => { state.hover = null; render(); });
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
    <span class="swatch" style="background:${SEAT_COLOURS[s]}"></span> seat ${s} (${SEAT_NAMES[s]})
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
  state.mode = state.game ? "play" : "setup";
  $("setup").hidden = false;
  render();
}

async function newGame(players: number, seats: SeatKind[], seed: number): Promise<void> {
  if (!haveRules()) await loadLevels(); // the tiles cannot be drawn without the rules facts
  if (!haveRules()) return;
  $("setup").hidden = true;
  stopThinking();
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
  state.game = { record: reply.record!, position: reply.position!, hash: reply.positionHash, seats, seed };
  state.mode = "play";
  state.evaluation = null;
  say(`new game: ${players} players, seed ${seed}`);
  await advance();
}

// ---------------------------------------------------------------- playing

const seatKind = (s: number) => state.game?.seats[s] ?? "human";
const isHuman = (s: number | undefined) => s !== undefined && seatKind(s) === "human";

/** After every change: draw, then let the AI move or ask the service what the human may do. */
async function advance(): Promise<void> {
  const g = state.game!;
  state.legal = [];
  state.choices = null;
  const toAct = g.position.toAct;
  if (g.position.phase === Phase.OVER) {
    state.busy = false;
    state.evaluation = null;
    render();
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

async function aiMove(seat: number): Promise<void> {
  const g = state.game!;
  const controller = new AbortController();
  state.thinking = controller;
  state.evalSeq = 0;
  render();
  let last: Evaluation | undefined;
  try {
    // the whole record: the search sees only what the seat to act sees of it
    const reports = client.analyzePosition({
      source: fromRecord(g.record), budget: budget(seatKind(seat)),
      seed: BigInt(g.seed + g.record.actions.length), maxCandidates: 5, reportInterval: durationFromMs(200),
    }, { signal: controller.signal });
    for await (const m of reports) {
      if (!m.evaluation) continue;
      last = m.evaluation;
      showEvaluation(m.evaluation, seat, m.sequence);
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
  state.thinking = null;
  if (!last) {
    state.busy = false;
    say("the service gave no answer for the AI seat: start a new game or undo", true);
    render();
    return;
  }
  const applied = await apply(last.bestAction!);
  if (applied) say(`${SEAT_NAMES[seat]} (AI): ${describe(applied)}`);
  await advance();
}

/** A short search (fixed seed and iterations) for the seat to act at the end of a record. */
async function evaluate(record: GameRecord, iterations: number, signal?: AbortSignal): Promise<Evaluation> {
  const reply = await client.suggestAction({
    source: fromRecord(record), budget: { case: "limits", value: { iterations: BigInt(iterations) } },
    seed: 1n, maxCandidates: 5,
  }, { signal });
  return reply.evaluation!;
}

/** The evaluation bar after each move (dropped when the position changes). */
async function quickEvaluation(): Promise<void> {
  const g = state.game!;
  const hash = g.hash, controller = new AbortController();
  state.quick = controller;
  try {
    const ev = await evaluate(g.record, 1500, controller.signal);
    if (state.game?.hash === hash && !state.analysis) showEvaluation(ev, g.position.toAct!, 0);
  } catch (e) { /* the bar keeps its last value */ }
  if (state.quick === controller) state.quick = null;
}

/** On demand: a 3-second streaming analysis for the seat to act. */
async function analyse(): Promise<void> {
  if (state.analysis) { stopAnalysis(); render(); return; }
  const position = currentPosition(), record = currentRecord();
  if (!position || !record || position.phase === Phase.OVER) return;
  const seat = position.toAct!;
  const controller = new AbortController();
  state.analysis = controller;
  render();
  try {
    const reports = client.analyzePosition({
      source: fromRecord(record), budget: { case: "limits", value: { time: durationFromMs(3000) } }, seed: 1n,
      maxCandidates: 6, reportInterval: durationFromMs(250),
    }, { signal: controller.signal });
    for await (const m of reports) if (m.evaluation) showEvaluation(m.evaluation, seat, m.sequence);
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

async function undo(): Promise<void> {
  const g = state.game;
  if (!g || state.mode !== "play") return;
  stopThinking();
  stopAnalysis();
  state.busy = true;
  const actions = g.record.actions;
  let i = actions.length - 1;
  while (i >= 0 && !isHuman(actions[i].seat)) i--;
  if (i < 0) { say("nothing to undo: no move of a human seat yet"); return advance(); }
  const record = cut(g.record, i);
  try {
    const reply = await client.validateRecord({ source: fromRecord(record) });
    Object.assign(g, { record, position: reply.position!, hash: reply.positionHash, standing: reply.standing,
      result: undefined });
  } catch (e) {
    state.busy = false;
    explain(e);
    render();
    return;
  }
  say(`undone: ${describe(actions[i])}`);
  await advance();
}

function rotate(): void {
  if (!state.tile) return;
  const rots = rotationsAt(state.hover);
  if (rots.length) {
    const current = ghostRotation();
    state.rotation = rots[(rots.indexOf(current) + 1) % rots.length];
  } else {
    state.rotation = (state.rotation + 1) % 4;
  }
  render();
}

/** The legal actions of the chosen tile at a cell (any rotation). */
function actionsAt(cell: { x: number; y: number } | null): Action[] {
  if (!cell || !state.tile) return [];
  return state.legal.filter((a) => {
    const p = placement(a);
    return p && p.tile === state.tile && p.x === cell.x && p.y === cell.y;
  });
}
function rotationsAt(cell: { x: number; y: number } | null): number[] {
  const out = actionsAt(cell).map((a) => placement(a)!.rotation);
  return [...new Set(out)].sort();
}
function ghostRotation(): number {
  const rots = rotationsAt(state.hover);
  if (!rots.length || rots.includes(state.rotation)) return state.rotation;
  return rots.find((r) => r > state.rotation) ?? rots[0];
}

function onCell(x: number, y: number): void {
  const g = state.game;
  if (state.mode !== "play" || !g || !isHuman(g.position.toAct) || state.thinking) return;
  if (g.position.phase !== Phase.TURN || !state.tile) {
    say("choose one of the offered results on the right", true);
    return;
  }
  const rotation = ghostRotation();
  const options = actionsAt({ x, y }).filter((a) => placement(a)!.rotation === rotation);
  if (options.length === 1) { void humanMove(options[0]); return; }
  if (options.length > 1) { state.choices = options; render(); return; }
  // not a legal move: the service says why
  void humanMove(create(ActionSchema, {
    seat: g.position.toAct, kind: { case: "place", value: { tile: state.tile, x, y, rotation } },
  }));
}

function onHover(x: number, y: number): void {
  if (state.hover?.x === x && state.hover?.y === y) return;
  state.hover = { x, y };
  renderBoard();
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
      say(`the record is not valid: ${check.errorIndex === -1 ? "header" : `action ${check.errorIndex}`}: ${check.errorMessage}`, true);
      return;
    }
    if (!haveRules()) await loadLevels();
    stopThinking();
    stopAnalysis();
    const record = check.record;
    state.replay = { record, index: 0, evals: new Map(), hash: "" };
    state.mode = "replay";
    $("setup").hidden = true;
    say(`replaying ${record.actions.length} actions; arrow keys step`);
    await replayGo(0);
  } catch (e) {
    explain(e);
  }
}
(window as any).cacaoOpenRecord = openRecord;

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
  if (r.index !== index) return;
  const position = reply.position!;
  replayPosition = position;
  Object.assign(r, { standing: reply.standing, result: reply.result, hash: reply.positionHash });
  state.evaluation = r.evals.get(index) ?? null;
  render();
  if (!state.evaluation && position.phase !== Phase.OVER) {
    try {
      const ev = await evaluate(record, 2000);
      r.evals.set(index, ev);
      if (r.index === index) showEvaluation(ev, position.toAct!, 0);
    } catch (e) { explain(e); }
  }
}

function playFromReplay(): void {
  const r = state.replay;
  if (!r) return;
  const record = cut(r.record, r.index);
  const seats = [...Array(record.players).keys()].map((s) =>
    $<HTMLSelectElement>(`seat-${s}`).value);
  state.game = { record, position: replayPosition!, hash: r.hash, seats, seed: 1, standing: r.standing };
  state.mode = "play";
  say(`playing on from action ${r.index}; seats: ${seats.join(", ")}`);
  advance().catch(explain);
}

// ---------------------------------------------------------------- drawing

function say(text: string, error = false): void {
  state.message = text;
  const box = $("message");
  box.textContent = text;
  box.className = error ? "error" : "";
  if (!error) {
    const li = document.createElement("li");
    li.textContent = text;
    $("log").prepend(li);
  }
}

/** Shows why a call failed: the code, and the fields the service names (or its message). */
function explain(e: unknown): void {
  const { code, message, violations } = explainError(e);
  const text = (violations.length ? violations : [message]).join("; ");
  const box = $("message");
  box.className = "error";
  box.innerHTML = "";
  const head = document.createElement("b");
  head.textContent = `${code}: `;
  box.append(head, text);
  state.message = text;
}

function showEvaluation(ev: Evaluation, seat: number, sequence: number): void {
  state.evaluation = ev;
  state.evalSeq = sequence;
  renderEvaluation(seat);
}

function render(): void {
  document.body.dataset.mode = state.mode;
  $("replay-bar").hidden = state.mode !== "replay";
  renderBoard();
  renderSeats();
  renderChoices();
  renderEvaluation(currentPosition()?.toAct);
  $("analyse").textContent = state.analysis ? "Stop analysis" : "Analyse";
  const g = state.game;
  $("thinking").hidden = !state.thinking;
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
    if (p.phase === Phase.OVER) status = "Game over";
    else status = `Turn ${p.turn + 1}: ${SEAT_NAMES[p.toAct ?? 0]} to ${p.phase === Phase.RESOLVE ? "choose a result" : "place a tile"}`;
    if (state.mode === "play" && g && !isHuman(p.toAct) && p.phase !== Phase.OVER) status += ` (AI ${seatKind(p.toAct!)})`;
  }
  $("status").textContent = status;
  $("status").style.borderColor = p && p.phase !== Phase.OVER ? SEAT_COLOURS[p.toAct ?? 0] : "#555";
  renderResult();
}

function renderBoard(): void {
  const p = currentPosition();
  const svg = $("board") as unknown as SVGSVGElement;
  if (!p) { svg.replaceChildren(); return; }
  const playing = state.mode === "play" && state.game && isHuman(p.toAct) && !state.thinking;
  const targets = new Map<string, "place" | "overbuild">();
  if (playing && state.tile) {
    for (const a of state.legal) {
      const q = placement(a);
      if (q?.tile === state.tile) targets.set(`${q.x},${q.y}`, a.kind.case === "place" ? "place" : "overbuild");
    }
  }
  let ghost = null;
  if (playing && state.tile && state.hover && p.phase === Phase.TURN) {
    const legal = targets.has(`${state.hover.x},${state.hover.y}`);
    ghost = { tile: state.tile, ...state.hover, rotation: ghostRotation(), seat: p.toAct ?? 0, legal };
  }
  const actions = (state.mode === "replay" ? state.replay?.record.actions.slice(0, state.replay.index)
    : state.game?.record.actions) ?? [];
  const last = [...actions].reverse().map(placement).find((q) => q);
  const marked = last ? [{ x: last.x, y: last.y },
    ...("fills" in last ? last.fills : []).map((f) => ({ x: f.x, y: f.y }))] : [];
  const temples = currentScores().standing?.temples ?? [];
  drawBoard(svg, { position: p, targets, ghost, marked, temples, onCell, onHover });
}

function miniTile(tile: WorkerTile, seat: number, rotation = 0, cls = ""): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
  svg.setAttribute("class", `mini ${cls}`);
  workerTile(svg, tile, seat, rotation, 0, 0);
  return svg;
}

function renderSeats(): void {
  const p = currentPosition();
  const box = $("seats");
  box.replaceChildren();
  if (!p) return;
  const { standing } = currentScores();
  const track = waterTrack();
  const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
  p.seats.forEach((s, i) => {
    const score = standing?.seats[i];
    const div = document.createElement("div");
    div.className = "seat" + (p.toAct === i && p.phase !== Phase.OVER ? " to-act" : "");
    div.dataset.seat = String(i);
    div.style.borderColor = SEAT_COLOURS[i];
    const who = state.mode === "play" ? (isHuman(i) ? "human" : `AI ${seatKind(i).replace("time:", "")}`) : "";
    div.innerHTML = `<div class="seat-head"><span class="swatch" style="background:${SEAT_COLOURS[i]}"></span>
      <b>${SEAT_NAMES[i]}</b> <span class="who">${who}</span></div>
      <div class="stats"><span title="gold${score ? `; if the game ended now: ${score.total} (temples ${signed(score.temples)}, sun ${signed(score.sun)}, water ${signed(score.water)})` : ""}"><i class="tok gold"></i><b class="gold">${s.gold}</b> gold</span>
      <span title="cacao (at most ${maxCacao()})"><i class="tok cacao"></i><b>${s.cacao}</b> cacao</span>
      <span title="sun tokens (at most ${maxSun()})"><i class="tok sun"></i><b>${s.sun}</b> sun</span>
      <span title="water carrier: space 0..${track.length - 1} (${track[0]} .. ${signed(track[track.length - 1])} gold at the end)"><i class="tok water"></i>water <b>${s.water}</b>${track.length ? ` (${signed(track[s.water])} gold)` : ""}</span>
      <span title="tiles left in the draw pile">pile ${s.pileCount}</span></div>`;
    const hand = document.createElement("div");
    hand.className = "hand";
    const shown = state.mode === "replay" || isHuman(i) || p.phase === Phase.OVER;
    const tiles = s.hand;
    if (shown) {
      const choosable = state.mode === "play" && p.toAct === i && isHuman(i) && p.phase === Phase.TURN;
      const usable = handTiles();
      const chosen = choosable && state.tile ? tiles.indexOf(state.tile) : -1;
      tiles.forEach((t, k) => {
        const mini = miniTile(t, i, 0, k === chosen ? "chosen" : "");
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
      `<span style="color:${SEAT_COLOURS[s]}" class="${n === most ? "lead" : ""}">${SEAT_NAMES[s]} ${n}</span>` : "")
      .filter(Boolean).join(", "));
    list.appendChild(li);
  }
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
      hint.textContent = "Overbuild (1 sun): click one of your own tiles (ringed).";
      box.appendChild(hint);
    }
  }
  if (!offered.length) return;
  const h = document.createElement("h3");
  h.textContent = title;
  box.appendChild(h);
  for (const a of offered) {
    const b = document.createElement("button");
    b.className = "choice";
    b.textContent = describe(a);
    b.onclick = () => void humanMove(a);
    box.appendChild(b);
  }
  if (state.choices) {
    const c = document.createElement("button");
    c.textContent = "cancel";
    c.onclick = () => { state.choices = null; render(); };
    box.appendChild(c);
  }
}

function renderEvaluation(seat: number | undefined): void {
  const ev = state.evaluation;
  const bar = $("evalbar");
  const details = $("evaluation");
  bar.replaceChildren();
  details.replaceChildren();
  if (!ev) {
    details.textContent = currentPosition()?.phase === Phase.OVER ? "the game is over" : "no evaluation yet: press Analyse";
    return;
  }
  for (const s of ev.seats) {
    const part = document.createElement("div");
    const p = s.winProbability;
    part.style.flexGrow = String(Math.max(p, 0.001));
    part.style.background = SEAT_COLOURS[s.seat];
    part.className = "evalpart";
    part.textContent = p >= 0.08 ? `${Math.round(p * 100)}%` : "";
    part.title = `${SEAT_NAMES[s.seat]}: win ${(p * 100).toFixed(1)}%, expected gold ${s.expectedGold.toFixed(1)}`;
    bar.appendChild(part);
  }
  const head = document.createElement("div");
  head.className = "evalhead";
  head.dataset.sequence = String(state.evalSeq);
  head.dataset.iterations = String(ev.iterations);
  head.textContent = `${ev.final ? "final" : "searching…"} ${Number(ev.iterations).toLocaleString()} iterations` +
    (seat !== undefined ? `, for ${SEAT_NAMES[seat]}` : "");
  details.appendChild(head);
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>seat</th><th>win</th><th>gold</th></tr>" + ev.seats.map((s) =>
    `<tr><td style="color:${SEAT_COLOURS[s.seat]}">${SEAT_NAMES[s.seat]}</td>
     <td>${(s.winProbability * 100).toFixed(0)}%</td><td>${s.expectedGold.toFixed(1)}</td></tr>`).join("");
  details.appendChild(table);
  if (state.mode === "play" && seat !== undefined && !isHuman(seat) && state.game?.seats.includes("human")) {
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
  const ol = document.createElement("ol");
  ol.className = "candidates";
  for (const c of ev.candidates) {
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

/** The result at the end, each seat's gold with where it came from (the service's standing). */
function renderResult(): void {
  const box = $("result");
  const p = currentPosition();
  const { result, standing } = currentScores();
  box.hidden = !(p?.phase === Phase.OVER && result);
  if (box.hidden || !result) return;
  const winners = result.winners.map((s) => SEAT_NAMES[s]).join(" and ");
  const parts = (seat: number) => {
    const s = standing?.seats[seat];
    return s ? ` (${s.gold} held, temples ${s.temples}, sun ${s.sun}, water ${s.water})` : "";
  };
  box.innerHTML = `<h2>${winners} win${result.winners.length > 1 ? "" : "s"}</h2>` +
    result.seats.map((s) => `<span style="color:${SEAT_COLOURS[s.seat]}">${SEAT_NAMES[s.seat]}: ${s.gold} gold, ${s.cacao} cacao</span>` +
      `<span class="small">${parts(s.seat)}</span>`).join("<br>");
}

void init();
