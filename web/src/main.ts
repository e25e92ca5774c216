// The board page: set up a game, play it against the AI, analyse, undo, save, load and replay.
// Every rule question (legal actions, resolutions, results, why a move is illegal) goes to the service.
import { ApiError, call, setToken, stream } from "./api";
import type { Action, Evaluation, GameRecord, Position, WorkerTile } from "./api";
import { CELL, SEAT_COLOURS, SEAT_NAMES, drawBoard, jungleTile, workerTile } from "./board";
import { describe, observation, recordFromFile, recordToFile, sameAction, temples, workerName } from "./game";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const num = (v: number | undefined) => v ?? 0;

type SeatKind = "human" | string; // "human" or an AI level ("casual", "time:2")
interface Game { record: GameRecord; position: Position; hash: string; seats: SeatKind[]; seed: number }
interface Replay { record: GameRecord; index: number; evals: Map<number, Evaluation> }

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
};
// for tests and the curious: the page's state
(window as any).cacao = state;

function budget(kind: SeatKind): object {
  return kind.startsWith("time:") ? { limits: { time: `${kind.slice(5)}s` } } : { level: kind };
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

async function loadLevels(): Promise<void> {
  try {
    const info = await call<{ levels?: { name: string }[]; defaultLevel?: string }>("GetServerInfo", {});
    state.levels = (info.levels ?? []).map((l) => l.name);
  } catch (e) {
    if (e instanceof ApiError && (e.code === "unauthenticated" || e.code === "permission_denied")) {
      say(`${e.code}: this server needs a token: enter it under New game, or open the page as ` +
          `${location.origin}/#token=YOUR_TOKEN`, true);
    } else {
      say(`cannot reach the service: ${(e as Error).message}`, true);
    }
  }
}

async function init(): Promise<void> {
  const token = takeToken();
  setToken(token);
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
  $("setup").hidden = true;
  stopThinking();
  state.legal = [];
  state.busy = true;
  const reply = await call<{ position: Position; positionHash: string; record: GameRecord }>(
    "NewGame", { players, seed });
  state.game = { record: reply.record, position: reply.position, hash: reply.positionHash, seats, seed };
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
  if (g.position.phase === "PHASE_OVER") {
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
  const reply = await call<{ actions?: Action[] }>("ListLegalActions", { record: g.record });
  state.legal = reply.actions ?? [];
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
    const t = a.place?.tile ?? a.overbuild?.tile;
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

async function apply(action: Action): Promise<boolean> {
  const g = state.game!;
  try {
    const reply = await call<{ position: Position; positionHash: string; record: GameRecord }>(
      "ApplyAction", { record: g.record, action, expectedPositionHash: g.hash });
    g.record = reply.record;
    g.position = reply.position;
    g.hash = reply.positionHash;
    state.message = "";
    return true;
  } catch (e) {
    explain(e);
    return false;
  }
}

async function humanMove(action: Action): Promise<void> {
  if (state.busy) return;
  stopAnalysis(); // and the evaluation bar's search: the position changes
  state.choices = null;
  state.busy = true; // until the next human decision (or the end) is ready
  if (await apply(action)) {
    say(`${SEAT_NAMES[action.seat ?? 0]}: ${describe(action)}`);
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
  let last: Evaluation | null = null;
  for (let attempt = 0; !last && attempt <= 100; attempt++) {
    try {
      await stream<{ evaluation: Evaluation; sequence?: number }>("AnalyzePosition", {
        position: observation(g.position, seat), ...budget(seatKind(seat)),
        seed: String(g.seed + (g.record.actions?.length ?? 0)), maxCandidates: 5, reportInterval: "0.2s",
      }, (m) => {
        last = m.evaluation;
        showEvaluation(m.evaluation, seat, num(m.sequence));
      }, controller.signal);
    } catch (e) {
      if (controller.signal.aborted) return;
      if (e instanceof ApiError && e.code === "resource_exhausted" && attempt < 100) {
        say("the service is busy with other searches: asking again shortly");
        await sleep(250 + 50 * attempt); // the service asks for a retry shortly
        if (controller.signal.aborted) return;
        continue;
      }
      state.thinking = null;
      state.busy = false;
      explain(e);
      render();
      return;
    }
  }
  if (state.thinking !== controller) return;
  state.thinking = null;
  if (!last) {
    state.busy = false;
    say("the service gave no answer for the AI seat: start a new game or undo", true);
    render();
    return;
  }
  const action = (last as Evaluation).bestAction!;
  if (await apply(action)) say(`${SEAT_NAMES[seat]} (AI): ${describe(action)}`);
  await advance();
}

/** A short search (fixed seed and iterations) from the view of the seat to act. */
async function evaluate(position: Position, iterations: number, signal?: AbortSignal): Promise<Evaluation> {
  const reply = await call<{ evaluation: Evaluation }>("SuggestAction", {
    position: observation(position, position.toAct!), limits: { iterations }, seed: "1", maxCandidates: 5,
  }, signal);
  return reply.evaluation;
}

/** The evaluation bar after each move (dropped when the position changes). */
async function quickEvaluation(): Promise<void> {
  const g = state.game!;
  const hash = g.hash, controller = new AbortController();
  state.quick = controller;
  try {
    const ev = await evaluate(g.position, 1500, controller.signal);
    if (state.game?.hash === hash && !state.analysis) showEvaluation(ev, g.position.toAct!, 0);
  } catch (e) { /* the bar keeps its last value */ }
  if (state.quick === controller) state.quick = null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** On demand: a 3-second streaming analysis for the seat to act. */
async function analyse(): Promise<void> {
  if (state.analysis) { stopAnalysis(); render(); return; }
  const source = currentPosition();
  if (!source || source.phase === "PHASE_OVER") return;
  const seat = source.toAct!;
  const controller = new AbortController();
  state.analysis = controller;
  render();
  try {
    await stream<{ evaluation: Evaluation; sequence?: number }>("AnalyzePosition", {
      position: observation(source, seat), limits: { time: "3s" }, seed: "1", maxCandidates: 6,
      reportInterval: "0.25s",
    }, (m) => showEvaluation(m.evaluation, seat, num(m.sequence)), controller.signal);
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

async function undo(): Promise<void> {
  const g = state.game;
  if (!g || state.mode !== "play") return;
  stopThinking();
  stopAnalysis();
  state.busy = true;
  const actions = g.record.actions ?? [];
  let i = actions.length - 1;
  while (i >= 0 && !isHuman(actions[i].seat ?? 0)) i--;
  if (i < 0) { say("nothing to undo: no move of a human seat yet"); return advance(); }
  const record = { ...g.record, actions: actions.slice(0, i), result: undefined };
  const reply = await call<{ position: Position; positionHash: string }>("ValidateRecord", { record });
  Object.assign(g, { record, position: reply.position, hash: reply.positionHash });
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
    const p = a.place ?? a.overbuild;
    return p && p.tile === state.tile && num(p.x) === cell.x && num(p.y) === cell.y;
  });
}
function rotationsAt(cell: { x: number; y: number } | null): number[] {
  const out = actionsAt(cell).map((a) => num((a.place ?? a.overbuild)!.rotation));
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
  if (g.position.phase !== "PHASE_TURN" || !state.tile) {
    say("choose one of the offered results on the right", true);
    return;
  }
  const rotation = ghostRotation();
  const options = actionsAt({ x, y }).filter((a) => num((a.place ?? a.overbuild)!.rotation) === rotation);
  if (options.length === 1) { void humanMove(options[0]); return; }
  if (options.length > 1) { state.choices = options; render(); return; }
  // not a legal move: the service says why
  void humanMove({ seat: g.position.toAct, place: { tile: state.tile, x, y, rotation } });
}

function onHover(x: number, y: number): void {
  if (state.hover?.x === x && state.hover?.y === y) return;
  state.hover = { x, y };
  renderBoard();
}

// ---------------------------------------------------------------- files

function save(): void {
  const record = state.mode === "replay" ? state.replay?.record : state.game?.record;
  if (!record) return;
  const text = JSON.stringify(recordToFile(record), null, 1);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = `cacao-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, "-")}.json`;
  link.click();
  say(`saved ${record.actions?.length ?? 0} actions as ${link.download}`);
}

async function load(file: File | undefined): Promise<void> {
  if (!file) return;
  const text = await file.text();
  $<HTMLInputElement>("load-file").value = "";
  await openRecord(text);
}

/** Checks a cacao-record/1 text with the service and opens it in the replay viewer. */
async function openRecord(text: string): Promise<void> {
  try {
    const check = await call<{ valid?: boolean; errorIndex?: number; errorMessage?: string }>(
      "ValidateRecord", { recordJson: text });
    if (!check.valid) {
      say(`the record is not valid: ${check.errorIndex === -1 ? "header" : `action ${check.errorIndex}`}: ${check.errorMessage}`, true);
      return;
    }
    stopThinking();
    stopAnalysis();
    const record = recordFromFile(JSON.parse(text));
    state.replay = { record, index: 0, evals: new Map() };
    state.mode = "replay";
    $("setup").hidden = true;
    say(`replaying ${record.actions?.length ?? 0} actions; arrow keys step`);
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
  void replayGo(Math.max(0, Math.min(r.record.actions?.length ?? 0, r.index + step)));
}

async function replayGo(index: number): Promise<void> {
  const r = state.replay!;
  r.index = index;
  stopAnalysis();
  const record = { ...r.record, actions: (r.record.actions ?? []).slice(0, index), result: undefined };
  const reply = await call<{ position: Position }>("ValidateRecord", { record });
  if (r.index !== index) return;
  replayPosition = reply.position;
  state.evaluation = r.evals.get(index) ?? null;
  render();
  if (!state.evaluation && reply.position.phase !== "PHASE_OVER") {
    try {
      const ev = await evaluate(reply.position, 2000);
      r.evals.set(index, ev);
      if (r.index === index) showEvaluation(ev, reply.position.toAct!, 0);
    } catch (e) { explain(e); }
  }
}

function playFromReplay(): void {
  const r = state.replay;
  if (!r) return;
  const record = { ...r.record, actions: (r.record.actions ?? []).slice(0, r.index), result: undefined };
  const seats = [...Array(record.players).keys()].map((s) =>
    $<HTMLSelectElement>(`seat-${s}`).value);
  state.game = { record, position: replayPosition!, hash: "", seats, seed: 1 };
  call<{ positionHash: string }>("ValidateRecord", { record }).then((v) => {
    state.game!.hash = v.positionHash;
    state.mode = "play";
    say(`playing on from action ${r.index}; seats: ${seats.join(", ")}`);
    return advance();
  }).catch(explain);
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

function explain(e: unknown): void {
  if (e instanceof ApiError) {
    const box = $("message");
    box.className = "error";
    box.innerHTML = "";
    const head = document.createElement("b");
    head.textContent = `${e.code}: `;
    box.append(head, e.explanations.join("; "));
    state.message = e.explanations.join("; ");
  } else {
    say(String((e as Error)?.message ?? e), true);
  }
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
    const n = r.record.actions?.length ?? 0;
    const slider = $<HTMLInputElement>("r-slider");
    slider.max = String(n);
    slider.value = String(r.index);
    const last = r.index > 0 ? r.record.actions![r.index - 1] : null;
    $("r-label").textContent = `${r.index} / ${n}` + (last ? ` — ${SEAT_NAMES[last.seat ?? 0]}: ${describe(last)}` : "");
  }
  const p = currentPosition();
  let status = "";
  if (p) {
    if (p.phase === "PHASE_OVER") status = "Game over";
    else status = `Turn ${num(p.turn) + 1}: ${SEAT_NAMES[p.toAct ?? 0]} to ${p.phase === "PHASE_RESOLVE" ? "choose a result" : "place a tile"}`;
    if (state.mode === "play" && g && !isHuman(p.toAct) && p.phase !== "PHASE_OVER") status += ` (AI ${seatKind(p.toAct!)})`;
  }
  $("status").textContent = status;
  $("status").style.borderColor = p && p.phase !== "PHASE_OVER" ? SEAT_COLOURS[p.toAct ?? 0] : "#555";
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
      const q = a.place ?? a.overbuild;
      if (q?.tile === state.tile) targets.set(`${num(q.x)},${num(q.y)}`, a.place ? "place" : "overbuild");
    }
  }
  let ghost = null;
  if (playing && state.tile && state.hover && p.phase === "PHASE_TURN") {
    const legal = targets.has(`${state.hover.x},${state.hover.y}`);
    ghost = { tile: state.tile, ...state.hover, rotation: ghostRotation(), seat: p.toAct ?? 0, legal };
  }
  const actions = (state.mode === "replay" ? state.replay?.record.actions?.slice(0, state.replay.index)
    : state.game?.record.actions) ?? [];
  const lastPlace = [...actions].reverse().find((a) => a.place || a.overbuild);
  const marked = lastPlace ? [{ x: num((lastPlace.place ?? lastPlace.overbuild)!.x), y: num((lastPlace.place ?? lastPlace.overbuild)!.y) },
    ...(lastPlace.place?.fills ?? []).map((f) => ({ x: num(f.x), y: num(f.y) }))] : [];
  drawBoard(svg, { position: p, targets, ghost, marked, onCell, onHover });
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
  p.seats.forEach((s, i) => {
    const div = document.createElement("div");
    div.className = "seat" + (p.toAct === i && p.phase !== "PHASE_OVER" ? " to-act" : "");
    div.dataset.seat = String(i);
    div.style.borderColor = SEAT_COLOURS[i];
    const who = state.mode === "play" ? (isHuman(i) ? "human" : `AI ${seatKind(i).replace("time:", "")}`) : "";
    div.innerHTML = `<div class="seat-head"><span class="swatch" style="background:${SEAT_COLOURS[i]}"></span>
      <b>${SEAT_NAMES[i]}</b> <span class="who">${who}</span></div>
      <div class="stats"><span title="gold"><i class="tok gold"></i><b class="gold">${num(s.gold)}</b> gold</span>
      <span title="cacao (at most 5)"><i class="tok cacao"></i><b>${num(s.cacao)}</b> cacao</span>
      <span title="sun tokens (at most 3)"><i class="tok sun"></i><b>${num(s.sun)}</b> sun</span>
      <span title="water carrier: space 0..8 (-10 .. +16 gold at the end)"><i class="tok water"></i>water <b>${num(s.water)}</b></span>
      <span title="tiles left in the draw pile">pile ${num(s.pileCount)}</span></div>`;
    const hand = document.createElement("div");
    hand.className = "hand";
    const shown = state.mode === "replay" || isHuman(i) || p.phase === "PHASE_OVER";
    const tiles = s.hand ?? [];
    if (shown) {
      const choosable = state.mode === "play" && p.toAct === i && isHuman(i) && p.phase === "PHASE_TURN";
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
      hand.textContent = `${num(s.handCount)} tiles in hand`;
    }
    div.appendChild(hand);
    box.appendChild(div);
  });
  const display = $("display");
  display.replaceChildren();
  for (const t of p.display ?? []) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
    svg.setAttribute("class", "mini");
    jungleTile(svg, t, 0, 0);
    display.appendChild(svg);
  }
  $("deck").textContent = `${num(p.jungleDeckCount)} in the jungle deck`;
  const list = $("temples");
  list.replaceChildren();
  for (const t of temples(p)) {
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
    offered = state.legal.filter((a) => a.resolve || a.discard);
    title = p.phase === "PHASE_RESOLVE" ? `${SEAT_NAMES[p.toAct!]}: choose your result` : "No placement: discard a tile";
    const overbuilds = state.legal.filter((a) => a.overbuild);
    if (overbuilds.length && state.legal.some((a) => a.place)) {
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
    details.textContent = currentPosition()?.phase === "PHASE_OVER" ? "the game is over" : "no evaluation yet: press Analyse";
    return;
  }
  for (const s of ev.seats ?? []) {
    const part = document.createElement("div");
    const p = s.winProbability ?? 0;
    part.style.flexGrow = String(Math.max(p, 0.001));
    part.style.background = SEAT_COLOURS[s.seat ?? 0];
    part.className = "evalpart";
    part.textContent = p >= 0.08 ? `${Math.round(p * 100)}%` : "";
    part.title = `${SEAT_NAMES[s.seat ?? 0]}: win ${(p * 100).toFixed(1)}%, expected gold ${(s.expectedGold ?? 0).toFixed(1)}`;
    bar.appendChild(part);
  }
  const head = document.createElement("div");
  head.className = "evalhead";
  head.dataset.sequence = String(state.evalSeq);
  head.dataset.iterations = String(ev.iterations ?? 0);
  head.textContent = `${ev.final ? "final" : "searching…"} ${Number(ev.iterations ?? 0).toLocaleString()} iterations` +
    (seat !== undefined ? `, for ${SEAT_NAMES[seat]}` : "");
  details.appendChild(head);
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>seat</th><th>win</th><th>gold</th></tr>" + (ev.seats ?? []).map((s) =>
    `<tr><td style="color:${SEAT_COLOURS[s.seat ?? 0]}">${SEAT_NAMES[s.seat ?? 0]}</td>
     <td>${((s.winProbability ?? 0) * 100).toFixed(0)}%</td><td>${(s.expectedGold ?? 0).toFixed(1)}</td></tr>`).join("");
  details.appendChild(table);
  if (state.mode === "play" && seat !== undefined && !isHuman(seat) && state.game?.seats.includes("human")) {
    const note = document.createElement("p");
    note.className = "small";
    note.textContent = "The AI's candidate moves stay hidden: they would show its hand.";
    details.appendChild(note);
    return;
  }
  const r = state.replay;
  const next = state.mode === "replay" && r ? r.record.actions?.[r.index] : undefined;
  if (next) {
    const played = document.createElement("p");
    const best = ev.bestAction && sameAction(ev.bestAction, next);
    played.innerHTML = `<b>played next:</b> ${describe(next)}${best ? " — the AI's choice too" : ""}`;
    details.appendChild(played);
  }
  const ol = document.createElement("ol");
  ol.className = "candidates";
  for (const c of ev.candidates ?? []) {
    const li = document.createElement("li");
    li.textContent = `${describe(c.action)} — ${((c.winProbability ?? 0) * 100).toFixed(0)}% win, ${Number(c.visits ?? 0).toLocaleString()} visits`;
    const g = state.game;
    if (state.mode === "play" && g && isHuman(g.position.toAct) && state.legal.some((a) => sameAction(a, c.action))) {
      const b = document.createElement("button");
      b.textContent = "play";
      b.onclick = () => void humanMove(c.action);
      li.appendChild(b);
    }
    ol.appendChild(li);
  }
  details.appendChild(ol);
}

function renderResult(): void {
  const box = $("result");
  const p = currentPosition();
  const record = state.mode === "replay" ? state.replay?.record : state.game?.record;
  const result = record?.result;
  box.hidden = !(p?.phase === "PHASE_OVER" && result);
  if (box.hidden || !result) return;
  const winners = (result.winners ?? []).map((s) => SEAT_NAMES[s]).join(" and ");
  box.innerHTML = `<h2>${winners} win${(result.winners ?? []).length > 1 ? "" : "s"}</h2>` +
    result.seats.map((s) => `<span style="color:${SEAT_COLOURS[s.seat ?? 0]}">${SEAT_NAMES[s.seat ?? 0]}: ${s.gold ?? 0} gold, ${s.cacao ?? 0} cacao</span>`).join("<br>");
}

void init();
