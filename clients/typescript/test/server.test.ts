// The client against a real cacao-server's HTTP side, through each official
// Connect transport: connect-web (fetch, as in a browser), and connect-node
// over HTTP/1.1 and over HTTP/2 (h2c). Each makes every kind of call, in JSON
// and in binary: unary (POST and GET), a server stream, errors with their
// details, a deadline; over HTTP/2 also the bidirectional Analyze. Runs when
// CACAO_SERVER names the cacao-server program (CI sets it), else skips.
import assert from "node:assert/strict";
import * as http from "node:http";
import { after, before, describe, test } from "node:test";
import {
  actionText, className, Code, ConnectError, createCacaoClient, durationFromMs, durationMs, ErrorReason, explainError,
  Phase, reviewGame, sentence, WorkerTile,
} from "../src/index.js";
import type { CacaoClient, CacaoClientOptions, MessageInitShape } from "../src/index.js";
import type { AnalyzeRequestSchema } from "../src/gen/cacao/v1/cacao_pb.js";
import { createCacaoNodeClient } from "../src/node.js";
import { requirement, startServer } from "./support.js";
import type { CacaoServer } from "./support.js";

type Options = CacaoClientOptions;
const TRANSPORTS: Record<string, (url: string, options: Options) => CacaoClient> = {
  "connect-web (fetch)": (url, options) => createCacaoClient(url, options),
  "connect-node HTTP/1.1": (url, options) => createCacaoNodeClient(url, { ...options, httpVersion: "1.1" }),
  "connect-node HTTP/2": (url, options) => createCacaoNodeClient(url, { ...options, httpVersion: "2" }),
};

describe("a cacao-server", { skip: requirement({ server: true }) }, () => {
  let server: CacaoServer;
  before(async () => { server = await startServer("--max-searches", "2"); });
  after(() => { server?.stop(); });

  for (const [transport, connect] of Object.entries(TRANSPORTS)) {
    for (const binary of [false, true]) {
      const how = `${transport}, ${binary ? "binary" : "JSON"}`;

      test(`answers unary calls: ${how}`, async () => {
        const cacao = connect(server.url, { binary });
        const info = await cacao.getServerInfo({});
        assert.equal(info.apiVersion, "cacao.v1");
        assert.deepEqual(info.rules?.workerTiles.find((t) => t.name === "2101")?.faces, [2, 1, 0, 1]);
        const game = await cacao.newGame({ players: 2, seed: 7n });
        const legal = await cacao.listLegalActions({ source: { case: "record", value: game.record! } });
        assert.equal(legal.phase, Phase.TURN);
        assert.equal(legal.standing?.seats.length, 2);
        const applied = await cacao.applyAction({
          source: { case: "record", value: game.record! }, action: legal.actions[0],
        });
        assert.equal(applied.record?.actions.length, 1);
        const saved = await cacao.validateRecord({ source: { case: "record", value: applied.record! } });
        const read = await cacao.validateRecord({ source: { case: "recordJson", value: saved.recordJson } });
        assert.ok(read.valid && read.record?.actions.length === 1);
      });

      test(`streams an analysis to its final report: ${how}`, async () => {
        const cacao = connect(server.url, { binary });
        const game = await cacao.newGame({ players: 3, seed: 5n });
        const reports = [];
        for await (const report of cacao.analyzePosition({
          source: { case: "record", value: game.record! }, seed: 1n, reportInterval: durationFromMs(50),
          budget: { case: "limits", value: { iterations: 4000n } },
        })) reports.push(report);
        assert.deepEqual(reports.map((r) => r.sequence), reports.map((_, i) => i));
        assert.equal(reports.filter((r) => r.evaluation?.final).length, 1);
        assert.ok(reports.at(-1)?.evaluation?.final && reports.at(-1)?.evaluation?.bestAction);
      });

      test(`sends an error with its details, in a unary call and in a stream: ${how}`, async () => {
        const cacao = connect(server.url, { binary });
        const game = await cacao.newGame({ players: 2, seed: 7n });
        const source = { case: "record" as const, value: game.record! };
        const illegal = { seat: game.position!.toAct, kind: { case: "place" as const, value: { tile: WorkerTile.WORKER_TILE_2101, x: 40, y: 40 } } };
        await assert.rejects(cacao.applyAction({ source, action: illegal }), (e) => {
          const explained = explainError(e);
          assert.equal(explained.code, "invalid_argument");
          assert.equal(explained.reason, "ILLEGAL_ACTION");
          assert.equal(explained.errorReason, ErrorReason.ILLEGAL_ACTION);
          assert.match(explained.violations[0], /^action\.place\.x: /);
          return true;
        });
        await assert.rejects(async () => {
          for await (const _ of cacao.analyzePosition({ source, budget: { case: "level", value: "no-such-level" } })) {
            assert.fail("a report for an unknown level");
          }
        }, (e) => {
          assert.ok(e instanceof ConnectError && e.code === Code.InvalidArgument);
          assert.equal(explainError(e).reason, "UNKNOWN_LEVEL");
          return true;
        });
      });

      // the deadline as the header the transports send for `timeoutMs`, without the
      // client's own timer; a far deadline shows in the search's time limit without a
      // race against the machine's speed (the search ends by its iterations)
      test(`honours a call's deadline: ${how}`, async () => {
        const cacao = connect(server.url, { binary, retry: false });
        const game = await cacao.newGame({ players: 2, seed: 7n });
        const source = { case: "record" as const, value: game.record! };
        const reply = await cacao.suggestAction({
          source, budget: { case: "limits", value: { iterations: 500n, time: durationFromMs(120_000) } },
        }, { headers: { "Connect-Timeout-Ms": "50000" } });
        assert.ok(reply.evaluation?.final && reply.action);
        const limit = reply.evaluation.limits?.time;
        assert.ok(limit && durationMs(limit) < 50_000, "the search's time limit is cut to the deadline");
        await assert.rejects(cacao.suggestAction({ source, budget: { case: "level", value: "max" } },
          { headers: { "Connect-Timeout-Ms": "0" } }), (e) => {
          assert.equal(explainError(e).code, "deadline_exceeded");
          return true;
        });
      });
    }
  }

  // GET for the side-effect-free methods: seen in the HTTP requests the transport makes
  for (const binary of [false, true]) {
    const how = binary ? "binary" : "JSON";
    const calls = async (cacao: CacaoClient) => {
      const game = await cacao.newGame({ players: 3, seed: 5n });
      const legal = await cacao.listLegalActions({ source: { case: "record", value: game.record! } });
      assert.ok(legal.actions.length > 0);
      assert.equal((await cacao.getServerInfo({})).apiVersion, "cacao.v1");
    };

    test(`answers the side-effect-free calls as GETs: connect-web (fetch), ${how}`, async () => {
      const seen: string[] = [];
      const fetching: typeof fetch = (input, init) => {
        seen.push(`${init?.method ?? "GET"} ${String(input).split("/").at(-1)?.split("?")[0]}`);
        return fetch(input, init);
      };
      await calls(createCacaoClient(server.url, { binary, httpGet: true, fetch: fetching }));
      assert.deepEqual(seen, ["POST NewGame", "GET ListLegalActions", "GET GetServerInfo"]);
    });

    test(`answers the side-effect-free calls as GETs: connect-node HTTP/1.1, ${how}`, async () => {
      const seen: string[] = [];
      class Watching extends http.Agent {
        addRequest(req: http.ClientRequest, options: object): void {
          seen.push(`${req.method} ${req.path.split("/").at(-1)?.split("?")[0]}`);
          // @ts-expect-error: Agent.addRequest is Node's own (not in its types)
          super.addRequest(req, options);
        }
      }
      await calls(createCacaoNodeClient(server.url, {
        binary, httpGet: true, httpVersion: "1.1", nodeOptions: { agent: new Watching() },
      }));
      assert.deepEqual(seen, ["POST NewGame", "GET ListLegalActions", "GET GetServerInfo"]);
    });
  }

  for (const binary of [false, true]) {
    test(`stops a bidirectional Analyze when told, over HTTP/2: connect-node, ${binary ? "binary" : "JSON"}`,
      { timeout: 60_000 }, async () => {
        const cacao = createCacaoNodeClient(server.url, { binary, httpVersion: "2" });
        const game = await cacao.newGame({ players: 2, seed: 7n });
        let sayStop: () => void = () => {};
        const stopSaid = new Promise<void>((resolve) => { sayStop = resolve; });
        async function* requests(): AsyncIterable<MessageInitShape<typeof AnalyzeRequestSchema>> {
          yield {
            kind: {
              case: "start", value: {
                source: { case: "record", value: game.record! }, reportInterval: durationFromMs(50),
                budget: { case: "limits", value: { time: durationFromMs(50_000) } },
              },
            },
          };
          await stopSaid;
          yield { kind: { case: "stop", value: {} } };
        }
        const reports = [];
        for await (const report of cacao.analyze(requests())) {
          reports.push(report);
          sayStop(); // after the first report: the search runs until then
        }
        const last = reports.at(-1)?.evaluation;
        assert.ok(last?.final && last.bestAction, "one final report with the best action so far");
        assert.equal(last.stoppedBy, "stop");
        assert.equal(reports.filter((r) => r.evaluation?.final).length, 1);
      });
  }

  // a review streamed to its summary, and a suggestion explained, in the service's words
  for (const [transport, connect] of Object.entries(TRANSPORTS)) {
    test(`reviews a game, cancels a review, and explains a suggestion: ${transport}`, { timeout: 60_000 }, async () => {
      const cacao = connect(server.url, {});
      const { rules } = await cacao.getServerInfo({});
      let record = (await cacao.newGame({ players: 2, seed: 7n })).record!;
      for (let i = 0; i < 4; i++) { // a few moves: the first legal action each time
        const { actions } = await cacao.listLegalActions({ source: { case: "record", value: record } });
        record = (await cacao.applyAction({ source: { case: "record", value: record }, action: actions[0] })).record!;
      }
      const source = { case: "record" as const, value: record };
      const seen: [number, number][] = [];
      const review = await reviewGame(cacao, { source, limits: { iterations: 60n }, seed: 3n },
        { onDecision: (_, done, total) => seen.push([done, total]) });
      assert.equal(review.total, 4);
      assert.deepEqual(review.decisions.map((d) => d.index), [0, 1, 2, 3]);
      assert.deepEqual(seen, [[1, 4], [2, 4], [3, 4], [4, 4]]);
      assert.deepEqual(review.summary?.seats.map((s) => s.seat), [0, 1]);
      for (const d of review.decisions) {
        const cls = className(d);
        assert.ok(["best", "good", "inaccuracy", "mistake", "blunder", "forced"].includes(cls));
        assert.equal(cls === "forced", d.forced);
        if (d.explanation) {  // the best action's gain over the action taken, in words
          assert.ok(sentence(d.explanation, { rules: rules! }).startsWith(actionText(d.bestAction, rules!)));
        }
      }
      // cancelled at its first decision: the call ends as cancelled, the review goes no further
      const stop = new AbortController();
      await assert.rejects(reviewGame(cacao, { source, limits: { iterations: 60n }, seed: 3n },
        { signal: stop.signal, onDecision: () => stop.abort() }), (e) => {
        assert.equal(ConnectError.from(e).code, Code.Canceled);
        return true;
      });
      // a suggestion and why, against the runner-up
      const ask = { source, seed: 1n, maxCandidates: 5, budget: { case: "limits" as const, value: { iterations: 300n } } };
      assert.equal((await cacao.suggestAction(ask)).explanation, undefined); // only on request
      const reply = await cacao.suggestAction({ ...ask, explain: true, levels: ["casual", "casual"], settings: "analysis" });
      assert.ok(reply.explanation && reply.action, "an explanation beside the suggested action");
      assert.equal(reply.evaluation?.population, "casual"); // the chances of the players named
      const why = sentence(reply.explanation, { rules: rules! });
      assert.ok(why.startsWith(actionText(reply.action, rules!)), why);
      assert.doesNotMatch(why, /worker tile \d|undefined/);  // the tiles by their names in records
    });
  }

  // every draw pile empty and 2 placements left: the endgame solver proves the position
  // at strong (every figure exact with 2 players, no tree); casual, without a model, searches it
  test("marks what the endgame solver proved exact (connect-web, JSON)", async () => {
    const cacao = createCacaoClient(server.url);
    const game = await cacao.newGame({ players: 2, seed: 7n });
    let record = game.record!, position = game.position!;
    const solvable = () => position.phase === Phase.TURN && position.seats.every((s) => s.pileCount === 0)
      && position.seats.reduce((n, s) => n + s.handCount, 0) <= 2;
    while (!solvable()) {
      const legal = await cacao.listLegalActions({ source: { case: "record", value: record } });
      const applied = await cacao.applyAction({ source: { case: "record", value: record }, action: legal.actions[0] });
      record = applied.record!;
      position = applied.position!;
    }
    const source = { case: "record" as const, value: record };
    const solved = (await cacao.suggestAction({ source, seed: 1n, budget: { case: "level", value: "strong" } })).evaluation!;
    assert.ok(solved.exact && solved.stoppedBy === "exact" && solved.iterations === 0n && !solved.root);
    assert.ok(solved.candidates.length > 0 && solved.candidates.every((c) => c.exact));
    const searched = (await cacao.suggestAction({ source, seed: 1n, budget: { case: "level", value: "casual" } })).evaluation!;
    assert.ok(!searched.exact && searched.stoppedBy !== "exact" && !searched.candidates.some((c) => c.exact));
    const review = await reviewGame(cacao, { source, limits: { iterations: 300n }, seed: 1n,
      decisions: [record.actions.length - 1] });
    assert.equal(review.decisions.length, 1);
    assert.equal(typeof review.decisions[0].exact, "boolean"); // the decision's mark, read from the stream
  });

  test("refuses an Analyze that does not start with start (connect-node, HTTP/2)", async () => {
    const cacao = createCacaoNodeClient(server.url, { httpVersion: "2" });
    async function* requests(): AsyncIterable<MessageInitShape<typeof AnalyzeRequestSchema>> {
      yield { kind: { case: "stop", value: {} } };
    }
    await assert.rejects(async () => {
      for await (const _ of cacao.analyze(requests())) {
        assert.fail("a report without a start");
      }
    }, (e) => {
      assert.equal(explainError(e).code, "invalid_argument");
      assert.deepEqual(explainError(e).violations.map((v) => v.split(":")[0]), ["start"]);
      return true;
    });
  });
});
