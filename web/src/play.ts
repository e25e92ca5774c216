// Playing a game: a new game, the loop that lets the AI seats move (at a watchable pace
// when only AIs play, with pause and step) or asks the service what the human may do,
// a human's move, undo, and play going on from the action the replay viewer shows.
import { Phase, durationFromMs } from "@cacaoai/client";
import type { Action, Evaluation } from "@cacaoai/client";
import { client, fromRecord } from "./api";
import { $, explain, say } from "./dom";
import { describe, haveRules } from "./game";
import { seatName } from "./names";
import { handTiles } from "./placing";
import { budget, cut, keep } from "./record";
import { redraw } from "./redraw";
import { fillGraph, forecastPlayouts, levels, quickEvaluation, showEvaluation } from "./searches";
import { loadLevels } from "./setup";
import {
  aiOnly, closeReview, evaluateEveryMove, isHuman, seatKind, state, stopAnalysis, stopFilling, stopThinking,
} from "./state";
import type { SeatKind } from "./state";

/** An AI-only game's pace when "auto": the time between its moves. */
const AUTO_PACE_MS = 1000;
/** Candidates asked of the AI's search (the heat map of an AI-only game shows them). */
const AI_CANDIDATES = 30, AI_VS_HUMAN_CANDIDATES = 5;

const delay = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

export async function newGame(players: number, seats: SeatKind[], seed: number): Promise<void> {
  if (!haveRules()) await loadLevels(); // the tiles cannot be drawn without the rules facts
  if (!haveRules()) return;
  $("setup").hidden = true;
  stopThinking();
  stopFilling();
  closeReview();
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
  redraw.fit();
  say(`new game: ${players} players, seed ${seed}`);
  await advance();
}

/** After every change: draw, then let the AI move or ask the service what the human may do. */
export async function advance(): Promise<void> {
  const g = state.game!;
  state.legal = [];
  state.choices = null;
  state.selected = null;
  const toAct = g.position.toAct;
  if (g.position.phase === Phase.OVER) {
    state.busy = false;
    state.evaluation = null;
    redraw.page();
    void fillGraph();
    return;
  }
  if (!isHuman(toAct)) {
    redraw.page();
    await aiMove(toAct!);
    return;
  }
  let reply;
  try {
    reply = await client.listLegalActions({ source: fromRecord(g.record) });
  } catch (e) {
    state.busy = false;
    explain(e);
    redraw.page();
    return;
  }
  state.legal = reply.actions;
  g.standing = reply.standing;
  const tiles = handTiles(state.legal);
  if (state.tile === null || !tiles.includes(state.tile)) state.tile = tiles[0] ?? null;
  state.busy = false;
  redraw.page();
  if (evaluateEveryMove()) void quickEvaluation();
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

export async function humanMove(action: Action): Promise<void> {
  if (state.busy) return;
  stopAnalysis(); // and the evaluation bar's search: the position changes
  state.choices = null;
  state.selected = null;
  state.busy = true; // until the next human decision (or the end) is ready
  const applied = await apply(action);
  if (applied) {
    say(`${seatName(applied.seat)}: ${describe(applied)}`);
    await advance();
  } else {
    state.busy = false;
    redraw.page();
  }
}

/** Waits while the game is paused (Step lets one action through); false when the wait was ended. */
async function gate(signal: AbortSignal): Promise<boolean> {
  while (state.paused && state.steps <= 0 && !signal.aborted) {
    state.held = true;
    redraw.page();
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
  redraw.page();
  let last: Evaluation | undefined;
  try {
    // the whole record: the search sees only what the seat to act sees of it
    const reports = client.analyzePosition({
      source: fromRecord(g.record), budget: budget(seatKind(seat)),
      seed: BigInt(g.seed + g.record.actions.length), maxCandidates: aiOnly() ? AI_CANDIDATES : AI_VS_HUMAN_CANDIDATES,
      reportInterval: durationFromMs(200), levels: levels(), forecast: forecastPlayouts(),
    }, { signal: controller.signal });
    for await (const m of reports) {
      if (!m.evaluation) continue;
      last = m.evaluation;
      if (aiOnly() || evaluateEveryMove()) showEvaluation(m.evaluation, hash, seat, m.sequence);
    }
  } catch (e) {
    if (controller.signal.aborted) return;
    state.thinking = null;
    state.busy = false;
    explain(e);
    redraw.page();
    return;
  }
  if (state.thinking !== controller) return;
  if (!last) {
    state.thinking = null;
    state.busy = false;
    say("The service gave no answer for the AI seat: start a new game or undo.", true);
    redraw.page();
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
    say(`${seatName(seat)} (AI): ${describe(applied)}`);
  }
  await advance();
}

/** Takes back the last human move and the AI's answers to it. */
export async function undo(): Promise<void> {
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
  redraw.page();
  try {
    const reply = await client.validateRecord({ source: fromRecord(record) });
    Object.assign(g, { record, position: reply.position!, hash: reply.positionHash, standing: reply.standing,
      result: undefined });
    for (const k of [...g.evals.keys()]) if (k > i) g.evals.delete(k);
  } catch (e) {
    state.busy = false;
    explain(e);
    redraw.page();
    return;
  }
  say(`undone: ${describe(actions[i])}`);
  await advance();
}

/** Play goes on from the action shown, with the seats as the setup dialog has them. */
export function playFromReplay(): void {
  const r = state.replay;
  if (!r || !r.position) return;
  stopFilling();
  closeReview();
  const record = cut(r.record, r.index);
  const seats = [...Array(record.players).keys()].map((s) =>
    $<HTMLSelectElement>(`seat-${s}`).value);
  const evals = new Map([...r.evals].filter(([k]) => k <= r.index));
  state.game = { record, position: r.position, hash: r.hash, seats, seed: 1, standing: r.standing, evals };
  state.mode = "play";
  state.paused = false;
  say(`playing on from action ${r.index}; seats: ${seats.join(", ")}`);
  advance().catch(explain);
}
