// A page (served from another origin than the server) that makes every kind of
// call with connect-web in the browser, and hands back what it saw:
// `await window.runCalls(serverUrl, binary)`. test/browser.test.ts checks it.
import { createCacaoClient, durationFromMs, durationMs, explainError, WorkerTile } from "../../src/index.js";
import type { ErrorExplanation } from "../../src/index.js";

export interface CallResults {
  apiVersion: string;
  methods: string[];
  legalActions: number;
  appliedActions: number;
  valid: boolean;
  reports: { sequence: number; final: boolean }[];
  finalHasBestAction: boolean;
  unaryError: ErrorExplanation;
  streamError: ErrorExplanation;
  deadlineLimitMs: number;
  deadlineFinal: boolean;
  passedDeadline: ErrorExplanation;
}

async function runCalls(server: string, binary: boolean): Promise<CallResults> {
  const methods: string[] = [];
  const fetching: typeof fetch = (input, init) => {
    const name = String(input instanceof Request ? input.url : input).split("/").at(-1)?.split("?")[0];
    methods.push(`${init?.method ?? "GET"} ${name}`);
    return fetch(input, init);
  };
  const cacao = createCacaoClient(server, { binary, httpGet: true, fetch: fetching, retry: false });
  const info = await cacao.getServerInfo({});
  const game = await cacao.newGame({ players: 2, seed: 7n });
  const source = { case: "record" as const, value: game.record! };
  const legal = await cacao.listLegalActions({ source });
  const applied = await cacao.applyAction({ source, action: legal.actions[0] });
  const valid = await cacao.validateRecord({ source: { case: "record", value: applied.record! } });

  const reports = [];
  let finalHasBestAction = false;
  for await (const report of cacao.analyzePosition({
    source, seed: 1n, reportInterval: durationFromMs(50), budget: { case: "limits", value: { iterations: 3000n } },
  })) {
    reports.push({ sequence: report.sequence, final: report.evaluation?.final ?? false });
    if (report.evaluation?.final) finalHasBestAction = report.evaluation.bestAction !== undefined;
  }

  const illegal = { seat: game.position!.toAct, kind: { case: "place" as const, value: { tile: WorkerTile.WORKER_TILE_2101, x: 40, y: 40 } } };
  let unaryError: ErrorExplanation | undefined;
  try {
    await cacao.applyAction({ source, action: illegal });
  } catch (e) {
    unaryError = explainError(e);
  }
  let streamError: ErrorExplanation | undefined;
  try {
    for await (const _ of cacao.analyzePosition({ source, budget: { case: "level", value: "no-such-level" } })) {
      break;
    }
  } catch (e) {
    streamError = explainError(e);
  }

  // the deadline header as connect-web sends it, without the client's own timer: a far
  // one shows in the search's time limit (the search ends by its iterations), a
  // passed one ends the call
  const deadline = await cacao.suggestAction({
    source, budget: { case: "limits", value: { iterations: 500n, time: durationFromMs(120_000) } },
  }, { headers: { "Connect-Timeout-Ms": "50000" } });
  let passedDeadline: ErrorExplanation | undefined;
  try {
    await cacao.suggestAction({ source, budget: { case: "level", value: "max" } },
      { headers: { "Connect-Timeout-Ms": "0" } });
  } catch (e) {
    passedDeadline = explainError(e);
  }

  return {
    apiVersion: info.apiVersion, methods, legalActions: legal.actions.length,
    appliedActions: applied.record?.actions.length ?? 0, valid: valid.valid, reports, finalHasBestAction,
    unaryError: unaryError!, streamError: streamError!,
    deadlineLimitMs: durationMs(deadline.evaluation!.limits!.time!), deadlineFinal: deadline.evaluation!.final,
    passedDeadline: passedDeadline!,
  };
}

/** One call, for a server that does not let this origin call: how it fails. */
async function tryCall(server: string): Promise<ErrorExplanation | null> {
  try {
    await createCacaoClient(server, { retry: false }).newGame({ players: 2 });
    return null;
  } catch (e) {
    return explainError(e);
  }
}

Object.assign(window, { runCalls, tryCall });
