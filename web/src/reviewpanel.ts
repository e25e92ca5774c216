// The review's panel: progress, each seat's accuracy and counts, the way from mistake to
// mistake, and the move shown (its class, the best action, and why in a sentence); and
// the replay bar's review button with the mark of the action shown.
import { sentence } from "@cacaoai/client";
import type { DecisionReview } from "@cacaoai/client";
import type { Actions } from "./actions";
import { SEAT_INK, seatBadge } from "./board";
import { $, paragraphs, showBoard } from "./dom";
import { describe, sameAction, tileFacts } from "./game";
import { seatName } from "./names";
import { renderPracticeOffer } from "./practicepanel";
import { STEP_HINT, classWords, judged, markOf, nextMistake, percent, tallies } from "./review";
import { judgedOf, shownReview, state } from "./state";
import type { Review } from "./state";

/** The replay bar's review button, and the mark of the action shown beside its text. */
function renderReviewButton(act: Actions): void {
  const v = shownReview(), button = $("r-review");
  button.textContent = !v ? "Review" : v.running ? "Stop review" : "Close review";
  button.onclick = () => act.review();
  const r = state.replay, badge = $("r-mark");
  const d = v && r && r.index > 0 ? v.decisions.get(r.index - 1) : undefined;
  const cls = d ? judged(d).cls : null;
  badge.textContent = cls ? markOf(cls) : "";
  badge.className = cls ? `class-${cls}` : "";
  badge.title = cls ? classWords(cls) : "";
}

/** The review panel: progress, each seat's accuracy and counts, and the move shown. */
export function renderReview(act: Actions): void {
  const v = shownReview();
  $("p-review").hidden = !v;
  renderReviewButton(act);
  if (!v) { $("practice-offer").hidden = true; return; }
  const r = state.replay!, players = v.record.players, all = judgedOf(v);
  const progress = $("review-progress");
  const done = v.decisions.size, total = v.total;
  progress.textContent = v.running ? `Reviewing… ${done} of ${total || "?"} decisions`
    : v.summary ? `Reviewed ${done} decisions${v.summary.iterations ? `, ${Number(v.summary.iterations).toLocaleString()} iterations` : ""}`
      : `Review stopped after ${done} of ${total || "?"} decisions`;
  const bar = $<HTMLProgressElement>("review-bar");
  bar.hidden = !v.running;
  bar.max = Math.max(total, 1);
  bar.value = done;
  const rows = tallies(all, players).map((t) => {
    const summed = v.summary?.seats.find((s) => s.seat === t.seat);
    const accuracy = summed?.accuracy ?? t.accuracy;
    const c = t.counts;
    return `<tr data-seat="${t.seat}"><th scope="row">${seatBadge(t.seat)} <span style="color:${SEAT_INK[t.seat]}">${seatName(t.seat)}</span></th>
      <td class="accuracy">${accuracy === undefined ? "–" : `${Math.round(accuracy)}%`}</td>
      <td>${c.best}</td><td>${c.good}</td><td class="class-inaccuracy">${c.inaccuracy}</td>
      <td class="class-mistake">${c.mistake}</td><td class="class-blunder">${c.blunder}</td></tr>`;
  }).join("");
  $("review-seats").innerHTML = `<table class="score-table review-table"><thead><tr><th scope="col">seat</th>
    <th scope="col" title="the mean accuracy of the seat's decisions, each weighted by what was at stake (100%: every one the best)">accuracy</th>
    <th scope="col" title="best moves">best</th><th scope="col" title="good moves">good</th>
    <th scope="col" title="inaccuracies">?!</th><th scope="col" title="mistakes">?</th><th scope="col" title="blunders">??</th>
    </tr></thead><tbody>${rows}</tbody></table>`;
  const prev = nextMistake(all, r.index, -1), next = nextMistake(all, r.index, 1);
  $("rv-prev").toggleAttribute("disabled", prev === null);
  $("rv-next").toggleAttribute("disabled", next === null);
  // the move stepped to is shown with its verdict above it (on a phone, where this panel is below the board)
  $("rv-prev").onclick = () => { if (prev !== null) { act.replayGo(prev); showBoard(); } };
  $("rv-next").onclick = () => { if (next !== null) { act.replayGo(next); showBoard(); } };
  renderMove(v, r.index);
  renderPracticeOffer(act);
}
/** What an exact decision's badge says (and, with 3-4 players, under which rule). */
const EXACT_TITLE = "the endgame solver proved the values of this move and of the best one: the loss is exact";
const EXACT_PARANOID = ", as what the seat gets if all the other seats play together against it";

/** The decision that led to the position shown: its class, what it lost (exactly, where the
 *  endgame solver proved it), the best action, and why. */
function renderMove(v: Review, index: number): void {
  const box = $("review-move");
  box.replaceChildren();
  const d: DecisionReview | undefined = index > 0 ? v.decisions.get(index - 1) : undefined;
  box.dataset.index = d ? String(d.index) : "";
  const line = paragraphs(box);
  if (!d) {
    line("small", index === 0 ? STEP_HINT
      : v.running ? "This move is not reviewed yet." : "This move was not reviewed.");
    return;
  }
  const j = judged(d), mark = markOf(j.cls), players = v.record.players;
  const who = `${seatBadge(d.seat)} <b style="color:${SEAT_INK[d.seat]}">${seatName(d.seat)}</b>`;
  const exact = j.exact ? ` <span class="exact-badge" title="${EXACT_TITLE}${players > 2 ? EXACT_PARANOID : ""}">exact</span>` : "";
  line(`verdict class-${j.cls}`, `${who}: ${d.action ? describe(d.action) : "?"} — <b class="class">${mark ? `${mark} ` : ""}${classWords(j.cls)}</b>${exact}`);
  if (j.cls === "forced") return;
  const best = d.bestAction && d.action && sameAction(d.bestAction, d.action);
  if (j.winBefore !== undefined && j.winAfter !== undefined) {
    const loss = Math.round(j.winLoss * 100);
    line("numbers", `win chance ${percent(j.winBefore)} before, ${percent(j.winAfter)} after` +
      (best ? "" : ` (${j.exact ? "exact loss: " : ""}${loss ? `−${loss}` : "0"} points against the best, ` +
        `${d.goldLoss > 0 ? "−" : "+"}${Math.abs(d.goldLoss).toFixed(1)} gold)`));
  }
  if (best || !d.bestAction) {
    line("best", "the AI's choice too");
    return;
  }
  line("best", `<b>best:</b> ${describe(d.bestAction)}${j.bestWin !== undefined ? ` (${percent(j.bestWin)} win)` : ""}`);
  if (d.explanation) {
    const why = document.createElement("p");
    why.className = "why";
    const text = sentence(d.explanation, { rules: tileFacts(), seatName });
    why.textContent = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
    box.appendChild(why);
  }
}
