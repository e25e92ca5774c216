// Practise your mistakes: the exercises of a review, and a try judged by a review of that
// one decision (the request checked against an in-memory service).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import {
  ActionSchema, CacaoService, create, DecisionClass, DecisionReviewSchema, exercises, GameRecordSchema, judgeTry,
  SearchLimitsSchema,
} from "../src/index.js";
import type { ReviewGameRequest } from "../src/index.js";

const discard = (seat: number, tile: number) => create(ActionSchema, { seat, kind: { case: "discard", value: { tile } } });
const record = create(GameRecordSchema, { players: 2, actions: [0, 1, 0, 1, 0].map((s, i) => discard(s, i + 1)) });
const decision = (index: number, seat: number, classification: DecisionClass) =>
  create(DecisionReviewSchema, { index, seat, classification, action: record.actions[index] });

test("the exercises are the seat's inaccuracies, mistakes and blunders, each before its decision", () => {
  const items = exercises(record, [decision(4, 0, DecisionClass.BLUNDER), decision(1, 1, DecisionClass.MISTAKE),
    decision(2, 0, DecisionClass.GOOD), decision(0, 0, DecisionClass.INACCURACY)], [0]);
  assert.deepEqual(items.map((e) => [e.index, e.classification]), [[0, "inaccuracy"], [4, "blunder"]]);
  assert.equal(items[1].record.actions.length, 4);
  assert.equal(items[1].record.result, undefined);
  assert.throws(() => exercises(record, [decision(9, 0, DecisionClass.BLUNDER)]), /not an action of the record/);
});

test("a try is judged by a review of that one decision, with the review's budget and seed", async () => {
  const seen: ReviewGameRequest[] = [];
  const transport = createRouterTransport(({ service }) => {
    service(CacaoService, {
      async *reviewGame(req) {
        seen.push(req);
        const tried = req.source.case === "record" ? req.source.value.actions.at(-1) : undefined;
        const best = tried?.kind.case === "discard" && Number(tried.kind.value.tile) === 7;
        yield { sequence: 0, decisions: 1, kind: { case: "decision", value: create(DecisionReviewSchema, {
          index: 4, seat: 0, classification: best ? DecisionClass.BEST : DecisionClass.MISTAKE,
          winLoss: best ? 0 : 0.2, bestAction: discard(0, 7) }) } };
      },
    });
  });
  const client = createClient(CacaoService, transport);
  const item = exercises(record, [decision(4, 0, DecisionClass.BLUNDER)])[0];
  const limits = create(SearchLimitsSchema, { iterations: 600n });
  const miss = await judgeTry(client, item, discard(0, 3), limits, 9n);
  assert.equal(miss.solved, false);
  assert.equal(miss.classification, "mistake");
  const hit = await judgeTry(client, item, discard(0, 7), limits, 9n);
  assert.equal(hit.solved, true);
  const asked = seen[0];
  assert.deepEqual([asked.seats, asked.decisions, asked.seed, asked.limits?.iterations], [[0], [4], 9n, 600n]);
  assert.equal(asked.source.case === "record" ? asked.source.value.actions.length : 0, 5);
});

test("where the endgame solver proved the values, only an exactly best try solves", async () => {
  const answer = (classification: DecisionClass, exact: boolean) => createClient(CacaoService,
    createRouterTransport(({ service }) => {
      service(CacaoService, {
        async *reviewGame() {
          yield { sequence: 0, decisions: 1, kind: { case: "decision", value: create(DecisionReviewSchema, {
            index: 4, seat: 0, classification, exact, winLoss: 0.01, bestAction: discard(0, 7) }) } };
        },
      });
    }));
  const item = exercises(record, [decision(4, 0, DecisionClass.BLUNDER)])[0];
  const judged = async (classification: DecisionClass, exact: boolean) =>
    (await judgeTry(answer(classification, exact), item, discard(0, 3), undefined, 1n)).solved;
  assert.equal(await judged(DecisionClass.GOOD, false), true);
  assert.equal(await judged(DecisionClass.GOOD, true), false);
  assert.equal(await judged(DecisionClass.BEST, true), true);
});
