// Puzzles: the rating's arithmetic (the numbers of tests/test_puzzle_trainer.py, so the
// page and the terminal rate alike), and GetPuzzle and CheckPuzzle against a real
// cacao-server of the test puzzles (tests/data/puzzles.jsonl, --puzzles) through
// connect-web and connect-node, JSON and binary: the filters, a view without solutions,
// a right and a wrong try, the errors' reasons and fields, and drawPuzzle starting over
// once every puzzle that fits was seen. The server part runs when CACAO_SERVER names
// the cacao-server program (CI sets it), else skips.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import {
  Code, ConnectError, ErrorReason, afterPuzzle, createCacaoClient, drawPuzzle, expectedScore, explainError, firstProgress,
  newRating, toJson, GetPuzzleResponseSchema,
} from "../src/index.js";
import type { Action, CacaoClient, CacaoClientOptions } from "../src/index.js";
import { createCacaoNodeClient } from "../src/node.js";
import { requirement, startServer } from "./support.js";
import type { CacaoServer } from "./support.js";

test("the rating moves as Elo against the puzzle's rating, as the Python client's", () => {
  assert.equal(expectedScore(1200, 1200), 0.5);
  assert.ok(Math.abs(expectedScore(1200, 1000) - 0.7597) < 1e-4);
  assert.equal(newRating(1200, 1200, true), 1216);
  assert.equal(newRating(1200, 1200, false), 1184);
  assert.equal(newRating(1200, 800, true), 1203);
  assert.equal(newRating(1200, 2000, false), 1200);
  assert.equal(newRating(1200, 2000, true), 1232);
  assert.equal(newRating(100, 2200, false), 100);
});

test("the streak counts first tries in a row", () => {
  let p = afterPuzzle(afterPuzzle(firstProgress(), 1200, true), 1200, true);
  assert.deepEqual(p, { rating: 1231, streak: 2, bestStreak: 2, solved: 2, played: 2 });
  p = afterPuzzle(p, 1200, false);
  assert.deepEqual([p.streak, p.bestStreak, p.solved, p.played], [0, 2, 2, 3]);
});

// the test set's fixture (relative to this file, in .test-build/test/ when run)
const PUZZLES = fileURLToPath(new URL("../../../../tests/data/puzzles.jsonl", import.meta.url));
const TRANSPORTS: Record<string, (url: string, options: CacaoClientOptions) => CacaoClient> = {
  "connect-web (fetch)": (url, options) => createCacaoClient(url, options),
  "connect-node HTTP/2": (url, options) => createCacaoNodeClient(url, { ...options, httpVersion: "2" }),
};

describe("puzzles on a cacao-server", { skip: requirement({ server: true }) }, () => {
  let server: CacaoServer;
  before(async () => { server = await startServer("--max-searches", "1", "--puzzles", PUZZLES); });
  after(() => { server?.stop(); });

  for (const [transport, connect] of Object.entries(TRANSPORTS)) {
    for (const binary of [false, true]) {
      const how = `${transport}, ${binary ? "binary" : "JSON"}`;

      test(`draws a puzzle by its filters, as its seat's view only: ${how}`, async () => {
        const cacao = connect(server.url, { binary });
        const reply = await cacao.getPuzzle({ theme: "temple majority", maxRating: 1000, seed: 3n });
        const puzzle = reply.puzzle!;
        assert.equal(puzzle.id, "2p-test-0001");
        assert.deepEqual([puzzle.players, puzzle.seat, puzzle.rating, puzzle.themes], [2, 0, 800, ["temple majority"]]);
        assert.equal(reply.matching, 1);
        assert.deepEqual(reply.themes.map((t) => [t.name, t.puzzles]), [["temple majority", 2], ["water", 1],
          ["overbuilding with sun", 0], ["market timing", 2], ["denying an opponent", 1], ["exact endgame", 1]]);
        const position = puzzle.position!;
        assert.equal(position.view, 0);
        assert.ok(position.seats[0].hand.length === 3 && position.seats[1].hand.length === 0);
        assert.ok(!JSON.stringify(toJson(GetPuzzleResponseSchema, reply)).includes("solution"));
        const three = await cacao.getPuzzle({ players: 3, minRating: 1500 });
        assert.equal(three.puzzle?.id, "3p-test-0003");
        const others = await cacao.getPuzzle({ players: 2, exclude: ["2p-test-0001"] });
        assert.equal(others.puzzle?.id, "2p-test-0002");
        assert.equal(others.matching, 1);
      });

      test(`judges a try: the solution, a legal other one, an unknown id, an illegal one: ${how}`, async () => {
        const cacao = connect(server.url, { binary });
        const puzzle = (await cacao.getPuzzle({ players: 4 })).puzzle!;
        const legal = await cacao.listLegalActions({ source: { case: "position", value: puzzle.position! } });
        const tries = await Promise.all(legal.actions.map((action) => cacao.checkPuzzle({ puzzleId: puzzle.id, action })));
        const right = tries.filter((t) => t.correct);
        assert.equal(right.length, 1); // one solution among the legal actions
        const verdict = right[0];
        assert.ok(verdict.exact && verdict.rating === 2000 && verdict.gap > 0.2 && verdict.sentence.length > 20);
        assert.equal(verdict.solutions.length, 1);
        assert.ok(tries.every((t) => t.solutions.length === 1 && t.sentence === verdict.sentence));
        const some: Action = legal.actions[0];
        await assert.rejects(cacao.checkPuzzle({ puzzleId: "nope", action: some }), (e) => {
          const explained = explainError(e);
          assert.equal(explained.code, "not_found");
          assert.equal(explained.errorReason, ErrorReason.PUZZLE_NOT_FOUND);
          assert.match(explained.violations[0], /^puzzle_id: /);
          return true;
        });
        const far = { ...some, kind: { case: "place" as const, value: { ...(some.kind.value as object), x: 40, y: 40 } } };
        await assert.rejects(cacao.checkPuzzle({ puzzleId: puzzle.id, action: far as Action }), (e) => {
          const explained = explainError(e);
          assert.equal(explained.errorReason, ErrorReason.ILLEGAL_ACTION);
          assert.match(explained.violations[0], /^action\.place\.x: /);
          return true;
        });
      });
    }
  }

  test("nothing left is NotFound; drawPuzzle starts over once every puzzle that fits was seen", async () => {
    const cacao = createCacaoClient(server.url, { retry: false });
    await assert.rejects(cacao.getPuzzle({ theme: "overbuilding with sun" }), (e) => {
      assert.equal(ConnectError.from(e).code, Code.NotFound);
      assert.match(explainError(e).message, /passes the filters \(theme 'overbuilding with sun'\)/);
      return true;
    });
    const fresh = await drawPuzzle(cacao, { theme: "water" }, []);
    assert.deepEqual([fresh.reply.puzzle?.id, fresh.startedOver], ["2p-test-0002", false]);
    const again = await drawPuzzle(cacao, { theme: "water" }, ["2p-test-0002"]);
    assert.deepEqual([again.reply.puzzle?.id, again.startedOver], ["2p-test-0002", true]);
    await assert.rejects(drawPuzzle(cacao, { players: 3, minRating: 1700 }, ["3p-test-0003"]),
      (e) => ConnectError.from(e).code === Code.NotFound);
  });
});
