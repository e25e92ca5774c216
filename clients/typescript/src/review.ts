// Reviews and explanations: a game's review (ReviewGame) gathered as its reports
// stream in, a decision's class in words, and an explanation (a review's decision, or a
// suggestion's) as one sentence, in the service's own wording
// (cacaoai.search.explain.sentence), so that every front end says the same.
import type { CallOptions } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CacaoClient } from "./client.js";
import { DecisionClass } from "./gen/cacao/v1/cacao_pb.js";
import type {
  Action, DecisionReview, Explanation, ReviewGameRequestSchema, ReviewSummary, RulesFacts, WorkerTile,
} from "./gen/cacao/v1/cacao_pb.js";
import { seatName } from "./names.js";

/** A decision's class, best first; "forced": its only legal action, not judged. */
export type ClassName = "best" | "good" | "inaccuracy" | "mistake" | "blunder" | "forced";

const CLASS_NAMES: Record<DecisionClass, ClassName> = {
  [DecisionClass.UNSPECIFIED]: "forced",
  [DecisionClass.BEST]: "best",
  [DecisionClass.GOOD]: "good",
  [DecisionClass.INACCURACY]: "inaccuracy",
  [DecisionClass.MISTAKE]: "mistake",
  [DecisionClass.BLUNDER]: "blunder",
};

/** The class of a reviewed decision: "best", "good", "inaccuracy", "mistake", "blunder" or "forced". */
export function className(decision: Pick<DecisionReview, "forced" | "classification">): ClassName {
  return decision.forced ? "forced" : CLASS_NAMES[decision.classification] ?? "forced";
}

/** The mark a class gets beside a move, as chess annotates it: "?!", "?", "??" ("" for the others). */
export function reviewMark(cls: ClassName): "" | "?!" | "?" | "??" {
  return cls === "inaccuracy" ? "?!" : cls === "mistake" ? "?" : cls === "blunder" ? "??" : "";
}

/** A whole review: every decision judged (in the record's order), then each seat's summary. */
export interface GameReview {
  /** The decisions judged, by their index in the record's actions. */
  decisions: DecisionReview[];
  /** Each seat's accuracy and counts; undefined when the stream ended without it. */
  summary: ReviewSummary | undefined;
  /** The decisions the review judges in all (what a progress bar counts to). */
  total: number;
}

/** Options of reviewGame: the call's (signal, timeoutMs, ...) and a report hook. */
export interface ReviewOptions extends CallOptions {
  /** Told of each decision as it comes, with the number done and the total (a progress bar). */
  onDecision?: (decision: DecisionReview, done: number, total: number) => void;
}

/** Reviews a game (ReviewGame, server-streaming) and gathers its reports: each decision
 *  judged from its mover's view, then the summary. Aborting `signal` cancels the review
 *  on the server; the promise then rejects.
 *
 *      const review = await reviewGame(cacao, { source: { case: "record", value: record },
 *        limits: { iterations: 600n }, seed: 1n }, { onDecision: (d, done, total) => bar(done / total) });
 */
export async function reviewGame(client: CacaoClient, request: MessageInitShape<typeof ReviewGameRequestSchema>,
                                 options: ReviewOptions = {}): Promise<GameReview> {
  const { onDecision, ...call } = options;
  const review: GameReview = { decisions: [], summary: undefined, total: 0 };
  for await (const report of client.reviewGame(request, call)) {
    review.total = report.decisions;
    if (report.kind.case === "decision") {
      review.decisions.push(report.kind.value);
      onDecision?.(report.kind.value, review.decisions.length, review.total);
    } else if (report.kind.case === "summary") {
      review.summary = report.kind.value;
    }
  }
  review.decisions.sort((a, b) => a.index - b.index);
  return review;
}

// --- explanations in words ---------------------------------------------------

/** How a sentence names things: the tiles from the server's rules facts
 *  (GetServerInfo's `rules`), the seats by `seatName` (default: their colours). */
export interface Wording {
  rules: Pick<RulesFacts, "workerTiles">;
  seatName?: (seat: number) => string;
}

/** One score part of the seat at the end of each line. */
export interface PartLike { name: string; best: number; other: number }
/** A temple whose awards differ: the gold its majority gives each seat at each line's end. */
export interface TempleLike { x: number; y: number; best: number[]; other: number[] }
/** What `line` gives `seat` over `otherLine` (each starting with an action of the seat):
 *  an Explanation message, or the same as plain data. */
export type ExplanationLike = Pick<Explanation, "seat" | "line" | "otherLine"> & {
  parts: PartLike[]; temples: TempleLike[];
  /** Every seat's score at the end of each line (absent or empty from an older server). */
  totals?: number[]; otherTotals?: number[];
};

/** The most gains a sentence names. */
const MAX_CLAUSES = 3;

/** "+4", "−10": a signed number of gold. */
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0");

const tileName = (rules: Wording["rules"], tile: WorkerTile) =>
  rules.workerTiles.find((t) => t.tile === tile)?.name ?? `worker tile ${tile}`;

/** An action in few words, as a sentence names it: "2101 at (1,-2)", "taking 4 gold and keeping 1 cacao". */
export function actionText(action: Action | undefined, rules: Wording["rules"]): string {
  const k = action?.kind;
  if (!k || !k.case) return "the move";
  if (k.case === "place") return `${tileName(rules, k.value.tile)} at (${k.value.x},${k.value.y})`;
  if (k.case === "overbuild") return `overbuilding with ${tileName(rules, k.value.tile)} at (${k.value.x},${k.value.y})`;
  if (k.case === "discard") return `discarding ${tileName(rules, k.value.tile)}`;
  return `taking ${k.value.gold} gold and keeping ${k.value.cacao} cacao`;
}

const part = (e: ExplanationLike, name: string) => e.parts.find((p) => p.name === name);

/** The temples where the line gains for its seat, or keeps another seat from gold. */
function templeClauses(e: ExplanationLike, name: (seat: number) => string): string[] {
  const seat = e.seat, out: string[] = [];
  for (const t of e.temples) {
    const at = (list: number[], s: number) => list[s] ?? 0;
    const mine = at(t.best, seat) - at(t.other, seat);
    const where = `the temple at (${t.x},${t.y})`;
    // the seat that leads the other line (the lowest seat of a tie)
    let leader = -1;
    for (let s = 0; s < t.other.length; s++) {
      if (s !== seat && (leader < 0 || at(t.other, s) > at(t.other, leader))) leader = s;
    }
    if (mine > 0) {
      if (at(t.best, seat) === Math.max(...t.best) && leader >= 0 && at(t.other, leader) > at(t.other, seat)) {
        out.push(`takes the majority of ${where} from ${name(leader)} (${signed(mine)} gold at the end)`);
      } else {
        out.push(`gains at ${where} (${signed(mine)} gold at the end)`);
      }
    } else if (mine === 0) {
      for (let s = 0; s < t.best.length; s++) {
        if (s !== seat && at(t.best, s) < at(t.other, s)) {
          out.push(`keeps ${name(s)} from gold at ${where} (${signed(at(t.best, s) - at(t.other, s))} for ${name(s)})`);
        }
      }
    }
  }
  return out;
}

/** The parts where the line does better for its seat. */
function partClauses(e: ExplanationLike): string[] {
  const out: string[] = [];
  const space = part(e, "water_space"), water = part(e, "water");
  if (space && space.best > space.other) {
    out.push(`moves your water carrier to ${space.best} instead of ${space.other}` +
      (water ? ` (${signed(water.best - water.other)})` : ""));
  }
  const texts: [string, string][] = [
    ["sun", "leaves you {best} sun tokens instead of {other}"],
    ["gold", "leaves you {best} gold instead of {other}"],
    ["cacao", "leaves you {best} cacao instead of {other}"],
    ["plantations", "harvests {best} cacao from plantations instead of {other}"],
    ["markets", "sells {best} cacao at markets instead of {other}"],
  ];
  for (const [name, text] of texts) {
    const p = part(e, name);
    if (p && p.best > p.other) out.push(text.replace("{best}", String(p.best)).replace("{other}", String(p.other)));
  }
  return out;
}

/** One sentence from an explanation: what its line gains for its seat ("your") over the
 *  other line, at most three gains (temples first), then what decides the game: with two
 *  players the margin over the other seat, with three or four the gap to the leader (and
 *  the place, when it changes). For example "2101 at (1,-2) takes the majority of the
 *  temple at (1,-1) from yellow (+3 gold at the end) and moves your water carrier to 4
 *  instead of 2 (+3), +6 in the margin over yellow at the end". A line that does not gain
 *  on what decides says its gain is in the chances after the lines. The same words as the
 *  service's Python `sentence`. */
export function sentence(e: ExplanationLike, wording: Wording): string {
  const { rules } = wording, name = wording.seatName ?? seatName;
  const head = actionText(e.line[0], rules), other = actionText(e.otherLine[0], rules);
  const clauses = [...templeClauses(e, name), ...partClauses(e)].slice(0, MAX_CLAUSES);
  const totals = e.totals ?? [], otherTotals = e.otherTotals ?? [];
  const same = totals.length === otherTotals.length && totals.every((t, s) => t === otherTotals[s]);
  if (totals.length !== otherTotals.length || totals.length < 2 || (!clauses.length && same)) {
    return ownGoldSentence(e, head, other, clauses);
  }
  const [gained, decisive] = decisiveWords(e.seat, totals, otherTotals, name);
  const text = clauses.length ? `${head} ${listed(clauses)}, ${decisive}` : `${head} instead of ${other}: ${decisive}`;
  return gained ? text : `${text}; its gain is in the chances after these lines`;
}

const ORDINALS = ["", "first", "second", "third", "fourth"];
const listed = (clauses: string[]) =>
  clauses.length === 1 ? clauses[0] : `${clauses.slice(0, -1).join(", ")} and ${clauses[clauses.length - 1]}`;
/** The seat's margin over the best of the others (its lead when ahead). */
const edge = (seat: number, totals: number[]) => totals[seat] - Math.max(...totals.filter((_, s) => s !== seat));
const rank = (seat: number, totals: number[]) => 1 + totals.filter((t) => t > totals[seat]).length;

function decisiveWords(seat: number, totals: number[], otherTotals: number[],
                       name: (seat: number) => string): [boolean, string] {
  const mine = totals[seat] - otherTotals[seat], gain = edge(seat, totals) - edge(seat, otherTotals);
  const own = mine < 0 && gain > 0 ? `${signed(mine)} gold for you but ` : "";
  if (totals.length === 2) return [gain > 0, `${own}${signed(gain)} in the margin over ${name(1 - seat)} at the end`];
  let text = `${own}${signed(gain)} against the leader at the end`;
  const place = rank(seat, totals), otherPlace = rank(seat, otherTotals);
  if (place !== otherPlace) text += ` (${ORDINALS[place]} instead of ${ORDINALS[otherPlace]})`;
  return [gain > 0 || place < otherPlace, text];
}

/** The sentence of an explanation without the seats' totals: the seat's own gold. */
function ownGoldSentence(e: ExplanationLike, head: string, other: string, clauses: string[]): string {
  const total = part(e, "total");
  let text: string;
  if (clauses.length) {
    text = `${head} ${listed(clauses)}`;
  } else if (total && total.best > total.other) {
    text = `${head} scores more than ${other}`;
  } else if (total) {
    return `${head} scores ${total.other - total.best} gold less than ${other} along the expected lines; its gain is in the chances after them`;
  } else {
    return `${head} scores as much as ${other} along the expected lines; its gain is in the chances after them`;
  }
  if (total) text += `, ${signed(total.best - total.other)} gold in all at the end`;
  return text;
}
