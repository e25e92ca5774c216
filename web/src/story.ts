// What happened: the steps of the turn that led to the position shown (a placement, then
// each result chosen) and, when a seat must choose during another seat's turn, why.
import { Phase } from "@cacaoai/client";
import type { Action, Position } from "@cacaoai/client";
import { describe, jungleName, placement } from "./game";

/** A seat's name for the story ("yellow (AI)", "red (you)"). */
export type Namer = (seat: number) => string;

/** The actions of the last turn: its placement (or discard) and the results chosen after it. */
export function lastTurn(actions: Action[]): Action[] {
  let i = actions.length - 1;
  while (i >= 0 && actions[i].kind.case === "resolve") i--;
  return actions.slice(Math.max(i, 0));
}

/** One sentence per step of the last turn, then what the position waits for. */
export function turnStory(actions: Action[], position: Position, name: Namer): string[] {
  const lines = lastTurn(actions).map((a) => `${name(a.seat)}: ${describe(a)}`);
  const why = whyChoose(actions, position, name);
  if (why) lines.push(why);
  return lines;
}

/** Why the seat to act chooses a result now: its own placement, or another seat's
 *  placement that activated its workers; "" when it is not choosing a result. */
export function whyChoose(actions: Action[], position: Position, name: Namer): string {
  if (position.phase !== Phase.RESOLVE || position.toAct === undefined) return "";
  const seat = position.toAct, mover = position.mover;
  const placed = lastTurn(actions).map(placement).find((q) => q);
  const later = position.pending.slice(1).map((p) => name(p.seat));
  const then = later.length ? `; then ${later.join(", then ")}` : "";
  if (seat === mover || !placed) return `${name(seat)} chooses the result of the placement${then}.`;
  const fills = "fills" in placed ? placed.fills : [];
  const cause = fills.length
    ? `the ${fills.map((f) => `${jungleName(f.tile)} on (${f.x},${f.y})`).join(" and the ")} that ${name(mover)} put beside its tile on (${placed.x},${placed.y})`
    : `${name(mover)}'s tile on (${placed.x},${placed.y})`;
  return `${name(seat)} chooses a result during ${name(mover)}'s turn: ${cause} activated ${name(seat)}'s workers${then}.`;
}
