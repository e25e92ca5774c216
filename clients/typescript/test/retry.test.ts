// The retry and token interceptors against an in-memory service (no network,
// no real pauses: the sleep is recorded instead).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import {
  CacaoService, cacaoInterceptors, create, ErrorReason, errorReason, EvaluationSchema, explainError, retryDelay,
  SEARCH_METHODS,
} from "../src/index.js";
import { BadRequestSchema, ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import type { CacaoClientOptions, RetryEvent } from "../src/index.js";

/** A service whose calls fail with `codes` in turn, then succeed; and what it saw. */
function fake(codes: Code[], options: CacaoClientOptions = {}) {
  const seen = { calls: 0, tokens: [] as (string | null)[], pauses: [] as number[], retries: [] as RetryEvent[] };
  const next = () => {
    const code = codes[seen.calls++];
    if (code !== undefined) throw new ConnectError("refused", code);
  };
  const transport = createRouterTransport(({ service }) => {
    service(CacaoService, {
      getServerInfo(_req, ctx) {
        seen.tokens.push(ctx.requestHeader.get("Authorization"));
        next();
        return { apiVersion: "cacao.v1" };
      },
      suggestAction() {
        next();
        return { seat: 1 };
      },
      async *reviewGame() {
        next();
        yield { sequence: 0, decisions: 0 };
      },
      async *analyzePosition(req) {
        next();
        for (let sequence = 0; sequence < 3; sequence++) {
          yield { sequence, evaluation: create(EvaluationSchema, { final: sequence === 2 }) };
          if (req.maxCandidates === 99 && sequence === 0) throw new ConnectError("gone", Code.Unavailable);
        }
      },
    });
  }, {
    transport: {
      interceptors: cacaoInterceptors({
        ...options,
        retry: options.retry === false ? false : {
          random: () => 0.5,
          sleep: async (ms) => { seen.pauses.push(ms); },
          onRetry: (r) => seen.retries.push(r),
          ...options.retry,
        },
      }),
    },
  });
  return { client: createClient(CacaoService, transport), seen };
}

test("an unavailable service is asked again, with growing pauses", async () => {
  const { client, seen } = fake([Code.Unavailable, Code.Unavailable]);
  const info = await client.getServerInfo({});
  assert.equal(info.apiVersion, "cacao.v1");
  assert.equal(seen.calls, 3);
  assert.deepEqual(seen.pauses, [188, 375]); // 250 and 500 ms, a quarter drawn off by the jitter
  assert.deepEqual(seen.retries.map((r) => [r.method, r.attempt]), [["GetServerInfo", 1], ["GetServerInfo", 2]]);
});

test("the retries are bounded: the last refusal reaches the caller", async () => {
  const { client, seen } = fake(Array(10).fill(Code.Unavailable), { retry: { maxAttempts: 4 } });
  await assert.rejects(client.getServerInfo({}), (e: ConnectError) => e.code === Code.Unavailable);
  assert.equal(seen.calls, 4);
});

test("a busy server refuses a search, which is asked again; other calls are not", async () => {
  const search = fake([Code.ResourceExhausted]);
  assert.equal((await search.client.suggestAction({})).seat, 1);
  assert.equal(search.seen.calls, 2);
  const other = fake([Code.ResourceExhausted]);
  await assert.rejects(other.client.getServerInfo({}), (e: ConnectError) => e.code === Code.ResourceExhausted);
  assert.equal(other.seen.calls, 1);
});

test("a review is a search: a busy server's refusal of it is asked again, as the method table says", async () => {
  const { client, seen } = fake([Code.ResourceExhausted]);
  const reports = [];
  for await (const report of client.reviewGame({})) reports.push(report);
  assert.equal(reports.length, 1);
  assert.equal(seen.calls, 2);
  assert.ok(SEARCH_METHODS.includes("ReviewGame"));
});

test("an error that is the caller's is never retried", async () => {
  const { client, seen } = fake([Code.InvalidArgument]);
  await assert.rejects(client.suggestAction({}), (e: ConnectError) => e.code === Code.InvalidArgument);
  assert.equal(seen.calls, 1);
});

test("a stream refused before its first report is asked again, and every report arrives once", async () => {
  const { client, seen } = fake([Code.ResourceExhausted, Code.Unavailable]);
  const sequences = [];
  for await (const report of client.analyzePosition({})) sequences.push(report.sequence);
  assert.deepEqual(sequences, [0, 1, 2]);
  assert.equal(seen.calls, 3);
});

test("a stream that fails after a report is not asked again", async () => {
  const { client, seen } = fake([]);
  const sequences: number[] = [];
  await assert.rejects(async () => {
    for await (const report of client.analyzePosition({ maxCandidates: 99 })) sequences.push(report.sequence);
  }, (e: ConnectError) => e.code === Code.Unavailable);
  assert.deepEqual(sequences, [0]);
  assert.equal(seen.calls, 1);
});

test("a cancelled call stops waiting to be sent again", async () => {
  const controller = new AbortController();
  const { client, seen } = fake(Array(10).fill(Code.Unavailable), {
    retry: { sleep: async () => { controller.abort(); } },
  });
  await assert.rejects(client.getServerInfo({}, { signal: controller.signal }),
    (e: ConnectError) => e.code === Code.Canceled);
  assert.ok(seen.calls <= 2);
});

test("the token is sent with every call, as it is at the time of the call", async () => {
  let token = "first";
  const { client, seen } = fake([Code.Unavailable], { token: () => token });
  await client.getServerInfo({});
  token = "";
  await client.getServerInfo({});
  assert.deepEqual(seen.tokens, ["Bearer first", "Bearer first", null]);
});

test("the pauses double up to their cap, less a random share", () => {
  const full = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelay(n, { jitter: 0 }));
  assert.deepEqual(full, [250, 500, 1000, 2000, 4000, 4000, 4000]);
  assert.equal(retryDelay(3, { jitter: 1 }, () => 0.999), 1);
  assert.equal(retryDelay(3, { jitter: 0.5 }, () => 0), 1000);
});

test("an error's details are explained in words", () => {
  const error = new ConnectError("action is illegal", Code.InvalidArgument, undefined, [{
    desc: BadRequestSchema,
    value: { fieldViolations: [{ field: "action.place.x", description: "(9,9) is not an empty cell" }] },
  }]);
  const explained = explainError(error);
  assert.equal(explained.code, "invalid_argument");
  assert.equal(explained.message, "action is illegal");
  assert.deepEqual(explained.violations, ["action.place.x: (9,9) is not an empty cell"]);
});

test("an error's reason is read as the ErrorReason it names, and an unknown one as unspecified", () => {
  const error = new ConnectError("over", Code.FailedPrecondition, undefined, [{
    desc: ErrorInfoSchema, value: { reason: "GAME_OVER", domain: "cacao.v1" },
  }]);
  assert.equal(explainError(error).errorReason, ErrorReason.GAME_OVER);
  assert.equal(explainError(new ConnectError("no details")).errorReason, ErrorReason.ERROR_REASON_UNSPECIFIED);
  assert.equal(errorReason("A_REASON_OF_A_NEWER_SERVER"), ErrorReason.ERROR_REASON_UNSPECIFIED);
  assert.equal(errorReason(String(ErrorReason.GAME_OVER)), ErrorReason.ERROR_REASON_UNSPECIFIED);  // not the enum's reverse map
});
