// The client against a real cacao-server's HTTP side: every kind of call the
// Connect protocol has over HTTP/1.1, in JSON and in binary. Runs when
// CACAO_SERVER names the cacao-server program (CI sets it), else skips.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { after, before, describe, test } from "node:test";
import { Code, ConnectError, createCacaoClient, durationFromMs, durationMs, explainError, Phase, WorkerTile } from "../src/index.js";

const program = process.env.CACAO_SERVER;

/** A free loopback port (for the server's HTTP side, which has no "any port" setting). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    }).on("error", reject);
  });
}

/** Starts the server and resolves with its page's address once its log says it serves. */
function start(server: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = "";
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const found = /board page and Connect API on (http:\/\/\S+?)\/?\s/.exec(log);
      if (found) resolve(found[1]);
    };
    server.stdout?.on("data", read);
    server.stderr?.on("data", read);
    server.on("exit", (code) => reject(new Error(`cacao-server ended (${code}) before serving:\n${log}`)));
  });
}

describe("a cacao-server", { skip: program ? false : "CACAO_SERVER is not set" }, () => {
  let server: ChildProcess, url = "";
  before(async () => {
    const port = await freePort();
    server = spawn(program!, ["--host", "127.0.0.1", "--port", "0", "--http-port", String(port)],
      { stdio: ["ignore", "pipe", "pipe"] });
    url = await start(server);
  });
  after(() => { server?.kill(); });

  for (const binary of [false, true]) {
    const encoding = binary ? "binary" : "JSON";

    test(`answers unary calls in ${encoding}, with the rules facts and the standing`, async () => {
      const cacao = createCacaoClient(url, { binary });
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

    test(`streams an analysis in ${encoding} to its final report`, async () => {
      const cacao = createCacaoClient(url, { binary });
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

    test(`sends an error with its details in ${encoding}, in a unary call and in a stream`, async () => {
      const cacao = createCacaoClient(url, { binary });
      const game = await cacao.newGame({ players: 2, seed: 7n });
      const source = { case: "record" as const, value: game.record! };
      const illegal = { seat: game.position!.toAct, kind: { case: "place" as const, value: { tile: WorkerTile.WORKER_TILE_2101, x: 40, y: 40 } } };
      await assert.rejects(cacao.applyAction({ source, action: illegal }), (e) => {
        const explained = explainError(e);
        assert.equal(explained.code, "invalid_argument");
        assert.equal(explained.reason, "ILLEGAL_ACTION");
        assert.match(explained.violations[0], /^action\.place\.x: /);
        return true;
      });
      await assert.rejects(async () => {
        for await (const _ of cacao.analyzePosition({ source, budget: { case: "level", value: "no-such-level" } })) {
          assert.fail("a report for an unknown level");
        }
      }, (e) => e instanceof ConnectError && e.code === Code.InvalidArgument);
    });

    // the deadline as the header connect-web sends for `timeoutMs`, without the
    // client's own timer: the server must answer by it, whatever the machine's speed
    test(`honours a call's deadline in ${encoding}: a long search answers by then`, { timeout: 60_000 }, async () => {
      const cacao = createCacaoClient(url, { binary, retry: false });
      const game = await cacao.newGame({ players: 2, seed: 7n });
      const reply = await cacao.suggestAction({
        source: { case: "record", value: game.record! }, budget: { case: "limits", value: { time: durationFromMs(120_000) } },
      }, { headers: { "Connect-Timeout-Ms": "3000" } });
      assert.ok(reply.evaluation?.final && reply.action);
      const limit = reply.evaluation.limits?.time;
      assert.ok(limit && durationMs(limit) <= 3000, "the search's time limit is the deadline's");
    });
  }
});
