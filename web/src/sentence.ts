// An explanation in words: what the best action's line gives its seat that the action
// taken does not, from the score parts the service counts along both lines (the data of
// a review's reply). The same wording as the service's own sentence
// (cacaoai.search.explain.sentence), so that the page and the terminal say the same.
import type { Action } from "@cacaoai/client";
import { signed, workerName } from "./game";

/** One score part of the seat at the end of each line. */
export interface PartLike { name: string; best: number; other: number }
/** A temple whose awards differ: the gold its majority gives each seat at each line's end. */
export interface TempleLike { x: number; y: number; best: number[]; other: number[] }
/** What `line` gives `seat` over `otherLine` (each starting with an action of the seat). */
export interface ExplanationLike {
  seat: number; line: Action[]; otherLine: Action[]; parts: PartLike[]; temples: TempleLike[];
}

/** The most gains a sentence names. */
const MAX_CLAUSES = 3;

/** An action in few words: "2101 at (1,-2)", "taking 4 gold and keeping 1 cacao". */
export function actionText(action: Action | undefined): string {
  const k = action?.kind;
  if (!k || !k.case) return "the move";
  if (k.case === "place") return `${workerName(k.value.tile)} at (${k.value.x},${k.value.y})`;
  if (k.case === "overbuild") return `overbuilding with ${workerName(k.value.tile)} at (${k.value.x},${k.value.y})`;
  if (k.case === "discard") return `discarding ${workerName(k.value.tile)}`;
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
 *  other line, at most three gains (temples first), then the difference in the final
 *  gold; other seats named by `name`. For example "2101 at (1,-2) takes the majority of
 *  the temple at (1,-1) from yellow (+6 gold at the end) and moves your water carrier to
 *  4 instead of 2 (+3), +9 gold in all at the end". */
export function sentence(e: ExplanationLike, name: (seat: number) => string): string {
  const head = actionText(e.line[0]);
  const clauses = [...templeClauses(e, name), ...partClauses(e)].slice(0, MAX_CLAUSES);
  const total = part(e, "total");
  let text: string;
  if (clauses.length) {
    text = `${head} ${clauses.length === 1 ? clauses[0] : `${clauses.slice(0, -1).join(", ")} and ${clauses[clauses.length - 1]}`}`;
  } else if (total) {
    text = `${head} scores more than ${actionText(e.otherLine[0])}`;
  } else {
    return `${head} scores as much as ${actionText(e.otherLine[0])} along the expected lines; its gain is in the chances after them`;
  }
  if (total) text += `, ${signed(total.best - total.other)} gold in all at the end`;
  return text;
}
