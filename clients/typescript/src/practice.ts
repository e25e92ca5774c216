// Practise your mistakes: after a review, the player is put back before each of their
// inaccuracies, mistakes and blunders, from their seat's view only, and tries again. A try
// is judged by the review's own search: the record up to the mistake with the try in its
// place, that one decision reviewed (ReviewGame's `decisions`) at the review's budget and
// seed. It is solved when it loses less than an inaccuracy against the best action (its
// class is best or good); where the endgame solver proved both values (the decision is
// `exact`), only an exactly best try. The same rules as the Python client's
// cacaoai.client.practice.
import { clone, create } from "@bufbuild/protobuf";
import type { CallOptions } from "@connectrpc/connect";
import type { CacaoClient } from "./client.js";
import { GameRecordSchema, ReviewGameRequestSchema } from "./gen/cacao/v1/cacao_pb.js";
import type { Action, DecisionReview, GameRecord, SearchLimits } from "./gen/cacao/v1/cacao_pb.js";
import { className } from "./review.js";
import type { ClassName } from "./review.js";

/** The classes of the decisions a practice offers. */
export const PRACTISED: readonly ClassName[] = ["inaccuracy", "mistake", "blunder"];
/** The classes of a try that solves an exercise. */
export const SOLVED: readonly ClassName[] = ["best", "good"];

/** One decision to practise. */
export interface Exercise {
  /** The decision's index in the record's actions. */
  index: number;
  /** The seat that chose: the player. */
  seat: number;
  /** Its class in the review. */
  classification: ClassName;
  /** The action chosen in the game. */
  taken: Action;
  /** The game up to the decision (no result): show it from `seat`'s view only. */
  record: GameRecord;
}

/** A try judged. */
export interface Verdict {
  solved: boolean;
  classification: ClassName;
  /** The win probability the try loses against the best action. */
  winLoss: number;
  /** The best action the search found, and the review of the try whole (its explanation). */
  bestAction: Action | undefined;
  decision: DecisionReview;
}

/** The record's first `n` actions, without its result. */
function upTo(record: GameRecord, n: number): GameRecord {
  const copy = clone(GameRecordSchema, record);
  copy.actions = copy.actions.slice(0, n);
  copy.result = undefined;
  return copy;
}

/** The decisions of a review to practise: the inaccuracies, mistakes and blunders of
 *  `seats` (empty: every seat), in the order of the game. */
export function exercises(record: GameRecord, decisions: Iterable<DecisionReview>, seats: number[] = []): Exercise[] {
  return [...decisions]
    .filter((d) => PRACTISED.includes(className(d)) && (!seats.length || seats.includes(d.seat)))
    .sort((a, b) => a.index - b.index)
    .map((d) => {
      if (d.index < 0 || d.index >= record.actions.length || !d.action) {
        throw new RangeError(`decision ${d.index} is not an action of the record (${record.actions.length} actions)`);
      }
      return { index: d.index, seat: d.seat, classification: className(d), taken: d.action,
        record: upTo(record, d.index) };
    });
}

/** Judges `action` as the player's try at `exercise`, by the review's search (`limits` and
 *  `seed`: the review's, so the same try gets the same verdict). The server refuses an
 *  action that is not legal there (INVALID_ARGUMENT on the record). */
export async function judgeTry(client: CacaoClient, exercise: Exercise, action: Action,
                               limits: SearchLimits | undefined, seed: bigint, options: CallOptions = {}): Promise<Verdict> {
  const record = upTo(exercise.record, exercise.index);
  record.actions.push(action);
  const request = create(ReviewGameRequestSchema, {
    source: { case: "record", value: record }, limits, seed, seats: [exercise.seat], decisions: [exercise.index],
  });
  for await (const report of client.reviewGame(request, options)) {
    if (report.kind.case === "decision") {
      const decision = report.kind.value, cls = className(decision);
      // an exact loss (the endgame solver proved both values) is no estimate: only the best solves
      const solved = decision.exact ? cls === "best" : SOLVED.includes(cls);
      return { solved, classification: cls, winLoss: decision.winLoss,
        bestAction: decision.bestAction, decision };
    }
  }
  throw new Error("the review of the try reported no decision");
}
