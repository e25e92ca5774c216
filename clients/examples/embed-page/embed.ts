// The AI as an opponent in someone else's page, with @cacaoai/client.
//
// The page keeps the true game: the record (the deal and the actions so far).
// It asks the service (on another origin: the server must list this page's
// origin in --http-cors-origins) for the legal moves, applies the one you pick,
// and, on the AI's turns, streams the AI's analysis and plays its best move.
// A search sent a record sees only what the seat to act may see.
//
// Review: the game so far judged by the service (ReviewGame, streamed), every decision
// from its mover's view with its class, the best action and why in a sentence, then
// each seat's accuracy.
//
// Which server: ?server=http://host:8080 in this page's address (default
// http://127.0.0.1:8080), ?token=... for a server started with --auth-tokens,
// ?seed=N for a fixed deal, ?review=N for N search iterations per reviewed
// decision (default: the server's).
import {
  className, createCacaoClient, durationFromMs, explainError, reviewGame, reviewMark, seatName, sentence,
} from "@cacaoai/client";
import type { Action, GameRecord, JungleTile, ListLegalActionsResponse, RulesFacts, WorkerTile } from "@cacaoai/client";

const params = new URLSearchParams(location.search);
const cacao = createCacaoClient(params.get("server") ?? "http://127.0.0.1:8080", {
  token: params.get("token") ?? undefined,
});

const HUMAN = 0;
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const state: {
  record?: GameRecord; legal?: ListLegalActionsResponse; busy: boolean; over: boolean;
  review?: AbortController; reviewed: boolean;
} = { busy: false, over: false, reviewed: false };
// what the test (or a curious reader in the console) can look at
(window as unknown as { embed: typeof state }).embed = state;

// the tiles' names as records and every front end write them ("2101", "plantation-2"),
// from the service's rules facts (GetServerInfo)
const names = { worker: new Map<WorkerTile, string>(), jungle: new Map<JungleTile, string>() };
let rules: RulesFacts | undefined;
/** A seat as every cacaoai front end names it: its colour, and who plays it ("red (you)"). */
const who = (seat: number) => `${seatName(seat)} (${seat === HUMAN ? "you" : "AI"})`;
const tile = (t: WorkerTile) => names.worker.get(t) ?? `worker ${t}`;
const jungle = (t: JungleTile) => names.jungle.get(t) ?? `jungle ${t}`;

/** An action in words, e.g. "2101 at (1,0) turned 2, market-4 to (1,-1)". */
function describe(action: Action): string {
  const kind = action.kind;
  switch (kind.case) {
    case "place": {
      const fills = kind.value.fills.map((f) => `, ${jungle(f.tile)} to (${f.x},${f.y})`).join("");
      return `${tile(kind.value.tile)} at (${kind.value.x},${kind.value.y}) turned ${kind.value.rotation}${fills}`;
    }
    case "overbuild":
      return `${tile(kind.value.tile)} over (${kind.value.x},${kind.value.y}) turned ${kind.value.rotation}`;
    case "discard":
      return `discard ${tile(kind.value.tile)}`;
    case "resolve":
      return `take ${kind.value.gold} gold, keep ${kind.value.cacao} cacao`;
    default:
      return "?";
  }
}

function say(error: unknown): void {
  const { code, message } = explainError(error);
  $("error").textContent = `${code}: ${message}`;
}

function log(seat: number, action: Action): void {
  $("log").textContent += `${who(seat)}  ${describe(action)}\n`;
}

async function play(action: Action): Promise<void> {
  const applied = await cacao.applyAction({ source: { case: "record", value: state.record! }, action });
  state.record = applied.record;
  log(action.seat, applied.action ?? action);
  if (applied.result) {
    state.over = true;
    const mine = applied.result.seats.find((s) => s.seat === HUMAN)?.gold ?? 0;
    const winners = applied.result.winners.map(who).join(" and ");
    $("turn").textContent = `game over: ${winners} win${applied.result.winners.length > 1 ? "" : "s"} (you: ${mine} gold)`;
  }
}

/** The AI's move: its analysis streamed (iterations and win chance as it
 *  thinks), then the final report's best action played. */
async function aiMove(): Promise<void> {
  const thinking = $("thinking");
  thinking.hidden = false;
  let best: Action | undefined;
  for await (const report of cacao.analyzePosition({
    source: { case: "record", value: state.record! },
    budget: { case: "level", value: ($("level") as HTMLSelectElement).value },
    reportInterval: durationFromMs(100),
  })) {
    const e = report.evaluation!;
    const win = e.seats.find((s) => s.seat === report.seat)?.winProbability ?? 0;
    thinking.textContent = `the AI thinks… ${e.iterations} iterations, ${Math.round(win * 100)}% to win`;
    if (e.final) best = e.bestAction;
  }
  thinking.hidden = true;
  await play(best!);
}

/** Shows the position: whose turn, the standing, your moves. */
async function refresh(): Promise<void> {
  const moves = $("moves");
  moves.replaceChildren();
  if (state.over) return;
  const legal = await cacao.listLegalActions({ source: { case: "record", value: state.record! } });
  state.legal = legal;
  const seats = legal.standing?.seats ?? [];
  $("score").textContent = seats.map((s) => `${who(s.seat)} ${s.total} gold`).join(" · ");
  $("turn").textContent = legal.toAct === HUMAN ? "your move" : "the AI's move";
  if (legal.toAct !== HUMAN) return;
  for (const action of legal.actions) {
    const button = document.createElement("button");
    button.textContent = describe(action);
    button.addEventListener("click", () => act(() => play(action)));
    const item = document.createElement("li");
    item.append(button);
    moves.append(item);
  }
}

/** Runs a step, then lets the AI move until it is your turn (or the end). */
async function act(step: () => Promise<void>): Promise<void> {
  if (state.busy) return;
  state.busy = true;
  $("error").textContent = "";
  try {
    await step();
    await refresh();
    while (!state.over && state.legal?.toAct !== HUMAN) {
      await aiMove();
      await refresh();
    }
  } catch (error) {
    say(error);
  } finally {
    state.busy = false;
  }
}

/** The game so far reviewed by the service, each decision as it comes; again: stops it. */
async function review(): Promise<void> {
  if (state.review) { state.review.abort(); return; }
  if (!state.record?.actions.length || state.busy) return;
  const stop = new AbortController(), button = $("review") as HTMLButtonElement;
  state.review = stop;
  state.reviewed = false;
  button.textContent = "Stop the review";
  const rows = $("review-rows"), progress = $("review-progress");
  rows.replaceChildren();
  $("review-summary").textContent = "";
  $("error").textContent = "";
  const iterations = params.get("review");
  try {
    const done = await reviewGame(cacao, {
      source: { case: "record", value: state.record }, seed: 1n,
      limits: iterations ? { iterations: BigInt(iterations) } : undefined,
    }, {
      signal: stop.signal,
      onDecision: (d, n, total) => {
        progress.textContent = `${n} of ${total} decisions judged`;
        const cls = className(d);
        const why = d.explanation && rules ? sentence(d.explanation, { rules }) : "";
        const row = document.createElement("tr");
        row.className = cls;
        for (const text of [String(d.index + 1), who(d.seat), describe(d.action!), `${cls} ${reviewMark(cls)}`.trim(),
          cls === "best" || cls === "forced" || !d.bestAction ? "" : `${describe(d.bestAction)}${why ? `: ${why}` : ""}`]) {
          row.insertCell().textContent = text;
        }
        rows.append(row);
      },
    });
    $("review-summary").textContent = (done.summary?.seats ?? []).map((s) =>
      `${who(s.seat)}: accuracy ${s.accuracy === undefined ? "–" : `${s.accuracy.toFixed(1)}%`}, ` +
      `${s.inaccuracies} inaccuracies, ${s.mistakes} mistakes, ${s.blunders} blunders`).join(" · ");
    state.reviewed = true;
  } catch (error) {
    if (!stop.signal.aborted) say(error);
    else progress.textContent += " (stopped)";
  } finally {
    state.review = undefined;
    button.textContent = "Review the game";
  }
}

async function start(): Promise<void> {
  try {
    const info = await cacao.getServerInfo({});
    rules = info.rules;
    $("review").addEventListener("click", () => void review());
    for (const f of info.rules?.workerTiles ?? []) names.worker.set(f.tile, f.name);
    for (const f of info.rules?.jungleTiles ?? []) names.jungle.set(f.tile, f.name);
    const select = $("level") as HTMLSelectElement;
    select.replaceChildren(...info.levels.map((l) => new Option(l.name, l.name)));
    select.value = info.levels.some((l) => l.name === "beginner") ? "beginner" : info.defaultLevel;
    const button = $("new") as HTMLButtonElement;
    button.disabled = false;
    button.addEventListener("click", () => act(async () => {
      const seed = params.get("seed"); // a fixed deal, e.g. for a test
      const game = await cacao.newGame({ players: 2, seed: seed ? BigInt(seed) : undefined });
      state.review?.abort();
      state.record = game.record;
      state.over = false;
      $("log").textContent = "";
    }));
  } catch (error) {
    say(error);
  }
}

void start();
