// Messages for the unit tests, made as the service would send them.
import {
  ActionSchema, EvaluationSchema, GameRecordSchema, Phase, PositionSchema, RulesFactsSchema, create,
} from "@cacaoai/client";
import type { Action, Evaluation, WorkerTile } from "@cacaoai/client";
import { setRules } from "../src/game";
import { useRedraw } from "../src/redraw";
import { state } from "../src/state";

/** A placement of worker tile `tile` at (x, y), with fills [jungle tile, x, y]. */
export function place(seat: number, tile: number, x: number, y: number, rotation = 0,
                      fills: [number, number, number][] = []): Action {
  return create(ActionSchema, { seat, kind: { case: "place", value: {
    tile, x, y, rotation, fills: fills.map(([t, fx, fy]) => ({ tile: t, x: fx, y: fy })) } } });
}

export function overbuild(seat: number, tile: number, x: number, y: number, rotation = 0): Action {
  return create(ActionSchema, { seat, kind: { case: "overbuild", value: { tile, x, y, rotation } } });
}

export function resolve(seat: number, gold: number, cacao: number): Action {
  return create(ActionSchema, { seat, kind: { case: "resolve", value: { gold, cacao } } });
}

/** An evaluation with a win chance per seat and some iterations. */
export function evaluation(wins: number[], iterations = 2000, stoppedBy = "iterations"): Evaluation {
  return create(EvaluationSchema, {
    seats: wins.map((w, seat) => ({ seat, winProbability: w, expectedGold: 50 })),
    iterations: BigInt(iterations), stoppedBy, final: true,
  });
}

/** The rules facts with a few tiles' names (as GetServerInfo gives them). */
export function someRules(): void {
  setRules(create(RulesFactsSchema, {
    workerTiles: [{ tile: 1, name: "1111", faces: [1, 1, 1, 1] }, { tile: 2, name: "2101", faces: [2, 1, 0, 1] }],
    jungleTiles: [{ tile: 1, name: "plantation-1" }, { tile: 2, name: "plantation-2" }, { tile: 4, name: "market-3" }],
    waterTrack: [-10, -4, -1, 0, 2, 4, 7, 11, 16], maxCacao: 5, maxSun: 3,
  }));
}

/** Makes every redraw a controller asks for a line in the list returned (the views are not drawn). */
export function recordRedraws(): string[] {
  const asked: string[] = [];
  useRedraw({
    page: () => asked.push("page"), board: () => asked.push("board"), evaluation: () => asked.push("evaluation"),
    graph: () => asked.push("graph"), review: () => asked.push("review"),
    fit: () => asked.push("fit"), reveal: (c) => asked.push(`reveal ${c.x},${c.y}`),
  });
  return asked;
}

/** The page in a 2-player game, seat 0 (human) to place, with these legal actions and `tile` chosen. */
export function humanTurn(legal: Action[], tile: WorkerTile | null): void {
  Object.assign(state, {
    mode: "play", legal, tile, rotation: 0, hover: null, selected: null, choices: null, choice: 0, tapped: -1,
    busy: false, thinking: null, analysis: null, quick: null, filling: null, replay: null, review: null,
    game: {
      record: create(GameRecordSchema, { players: 2 }), hash: "h0", seats: ["human", "casual"], seed: 1,
      position: create(PositionSchema, { players: 2, phase: Phase.TURN, toAct: 0 }), evals: new Map(),
    },
  });
}
