// A game's review as the page shows it: each decision's class and its mark (?! ? ??),
// the graph's points (the mover's win chance before and after each decision, from the
// mover's own view) with the marks on them, the way from one mistake to the next, and
// the verdict of the move shown in one line.
import { className, reviewMark } from "@cacaoai/client";
import type { ClassName, DecisionReview } from "@cacaoai/client";
import { describe, sameAction } from "./game";
import type { GraphMark, GraphPoint } from "./graph";
import { seatName } from "./names";

/** The classes of a decision, best first; "forced": one legal action, not judged. */
export type MoveClass = ClassName;
export const CLASSES: MoveClass[] = ["best", "good", "inaccuracy", "mistake", "blunder"];

/** One reviewed decision as the page keeps it: action `index` of the record, by `seat`
 *  (win chances 0..1, the mover's; undefined when forced); `exact`: the endgame solver proved
 *  both actions' values, so the loss is exact (with 3-4 players, against all the others together). */
export interface Judged {
  index: number; seat: number; cls: MoveClass;
  winBefore?: number; winAfter?: number; bestWin?: number; winLoss: number; goldLoss: number; accuracy?: number;
  exact?: boolean;
}

/** A decision of the service's review as the page keeps it. */
export function judged(d: DecisionReview): Judged {
  return { index: d.index, seat: d.seat, cls: className(d),
    winBefore: d.winBefore, winAfter: d.winAfter, bestWin: d.bestWin, winLoss: d.winLoss, goldLoss: d.goldLoss,
    accuracy: d.accuracy, exact: d.exact };
}

/** One seat's decisions summed up: its accuracy over those judged (undefined: none yet;
 *  see gameAccuracy) and the count of each class (forced ones left out). */
export interface Tally { seat: number; accuracy?: number; counts: Record<MoveClass, number> }

/** How much a decision made at win chance `win` tells of its player: 1 at an even share,
 *  falling toward 0 as the game is decided (as the service's review.stakes). */
export function stakes(win: number | undefined, players: number): number {
  if (win === undefined) return 1;
  const even = 1 / players;
  return Math.min(1, (win * (1 - win)) / (even * (1 - even)));
}

/** A seat's accuracy, as the service's summary gives it: the mean of its move accuracies,
 *  each weighted by what was at stake (the plain mean when every decision was made in a
 *  decided game; undefined when none was judged). */
export function gameAccuracy(decisions: Judged[], players: number): number | undefined {
  const scored = decisions.filter((d) => d.cls !== "forced" && d.accuracy !== undefined);
  if (!scored.length) return undefined;
  const weights = scored.map((d) => stakes(d.winBefore, players));
  const weight = weights.reduce((sum, w) => sum + w, 0);
  if (weight <= 0) return scored.reduce((sum, d) => sum + d.accuracy!, 0) / scored.length;
  return scored.reduce((sum, d, i) => sum + d.accuracy! * weights[i], 0) / weight;
}

/** Each seat's tally over the decisions judged so far (as the service's summary counts). */
export function tallies(decisions: Iterable<Judged>, players: number): Tally[] {
  const all = [...decisions];
  return [...Array(players).keys()].map((seat) => {
    const mine = all.filter((d) => d.seat === seat && d.cls !== "forced");
    const counts = Object.fromEntries(CLASSES.map((c) => [c, mine.filter((d) => d.cls === c).length])) as Record<MoveClass, number>;
    counts.forced = all.filter((d) => d.seat === seat && d.cls === "forced").length;
    return { seat, accuracy: gameAccuracy(mine, players), counts };
  });
}

/** The mark a class gets beside a move, as chess annotates: "?!", "?", "??" ("" for the others). */
export const markOf = (cls: MoveClass): string => reviewMark(cls);

/** A class in a player's words. */
export function classWords(cls: MoveClass): string {
  return cls === "best" ? "best move" : cls === "good" ? "good move" : cls === "forced" ? "the only move" : cls;
}

/** A decision that loses something worth showing (an inaccuracy, a mistake or a blunder). */
export const isMistake = (cls: MoveClass) => markOf(cls) !== "";

/** The graph's points: for each judged decision the mover's win chance before it (at
 *  `index`) and after it (at `index + 1`), each seat's line its own view of its decisions. */
export function reviewPoints(decisions: Iterable<Judged>, players: number): GraphPoint[] {
  const points: GraphPoint[] = [];
  const at = (index: number, seat: number, win: number) => {
    const w: number[] = Array(players);
    w[seat] = win;
    points.push({ index, win: w });
  };
  for (const d of [...decisions].sort((a, b) => a.index - b.index)) {
    if (d.winBefore !== undefined) at(d.index, d.seat, d.winBefore);
    if (d.winAfter !== undefined) at(d.index + 1, d.seat, d.winAfter);
  }
  return points;
}

/** The marks on the graph: each inaccuracy, mistake and blunder at the mover's win chance after it. */
export function reviewMarks(decisions: Iterable<Judged>): GraphMark[] {
  return [...decisions].filter((d) => isMistake(d.cls) && d.winAfter !== undefined)
    .sort((a, b) => a.index - b.index)
    .map((d) => ({ index: d.index + 1, seat: d.seat, win: d.winAfter!, mark: markOf(d.cls), cls: d.cls }));
}

/** The position (actions before it) that shows the next mistake after the one shown at
 *  `shown` (step -1: the one before), or null when there is none that way. The position
 *  shown after action i shows decision i. */
export function nextMistake(decisions: Iterable<Judged>, shown: number, step: 1 | -1): number | null {
  const after = [...decisions].filter((d) => isMistake(d.cls)).map((d) => d.index + 1)
    .filter((i) => (step > 0 ? i > shown : i < shown)).sort((a, b) => step * (a - b));
  return after[0] ?? null;
}

/** A win chance as a player reads it: "62%", "<1%". */
export const percent = (p: number) => (p > 0 && p < 0.005 ? "<1%" : `${Math.round(p * 100)}%`);

/** What the review says before its first move: the panel's line, and the message's. */
export const STEP_HINT = "Step to a move to see how good it was, or jump to the next mistake.";

/** The verdict of the move shown after `index` actions (`d`, its decision) in one line, said
 *  above the board as a practice's verdict is (on a phone the review's panel is below the
 *  board): who moved, its class and mark, what it lost against the best and the best action;
 *  before the first move or at a move not reviewed, what there is to do. */
export function verdictLine(d: DecisionReview | undefined, index: number, running: boolean): string {
  if (!d) return index === 0 ? STEP_HINT : `Action ${index} ${running ? "is not reviewed yet" : "was not reviewed"}.`;
  const j = judged(d), mark = markOf(j.cls), words = classWords(j.cls);
  const what = `Action ${index}, ${seatName(d.seat)}: ` + (j.cls === "forced" ? words
    : `${j.cls === "inaccuracy" ? "an" : "a"} ${words}${mark ? ` (${mark})` : ""}`);
  if (j.cls === "forced" || !d.bestAction || (d.action && sameAction(d.bestAction, d.action))) {
    return j.cls === "forced" || !d.bestAction ? `${what}.` : `${what}, the AI's choice too.`;
  }
  return `${what}: it loses ${percent(Math.max(j.winLoss, 0))} of win chance against the best. ` +
    `Best: ${describe(d.bestAction)}.`;
}
