// The practice's panel: which exercise of how many, the seat and the class of the move
// played there, the verdict of the last try, and after a second miss the best action
// (ringed on the board) with why in a sentence; Skip or Next, and Leave. And the
// review panel's offer: a seat's mistakes to practise.
import { PRACTISED, className, sentence } from "@cacaoai/client";
import type { Actions } from "./actions";
import { SEAT_INK, seatBadge } from "./board";
import { $, paragraphs } from "./dom";
import { practiceSeat, progressText, verdictText } from "./drill";
import { describe, tileFacts } from "./game";
import { seatName } from "./names";
import { classWords } from "./review";
import { shownReview, state } from "./state";

/** The review panel's offer to practise a seat's mistakes (once the review is done or stopped). */
export function renderPracticeOffer(act: Actions): void {
  const v = shownReview();
  const offer = $("practice-offer");
  offer.hidden = !v;
  if (!v) return;
  const select = $<HTMLSelectElement>("practice-seat");
  const players = v.record.players;
  if (select.options.length !== players || select.dataset.record !== String(v.record.actions.length)) {
    select.replaceChildren(...[...Array(players).keys()].map((s) => new Option(seatName(s), String(s))));
    const game = state.game; // the game reviewed, when the review is of the game just played
    select.value = String(practiceSeat(game && game.record.actions.length === v.record.actions.length ? game.seats : undefined));
    select.dataset.record = String(v.record.actions.length);
  }
  const seat = Number(select.value);
  const count = [...v.decisions.values()].filter((d) => d.seat === seat && PRACTISED.includes(className(d))).length;
  const button = $<HTMLButtonElement>("practise");
  button.disabled = !!v.running || count === 0;
  button.textContent = `Practise${count ? ` ${count}` : ""}`;
  button.title = count ? `play again the ${count} inaccuracies, mistakes and blunders of ${seatName(seat)}, from its view only`
    : "no inaccuracy, mistake or blunder of this seat to practise";
  select.onchange = () => renderPracticeOffer(act);
  button.onclick = () => act.practise(Number(select.value));
}

/** The practice panel (hidden outside a practice). */
export function renderPractice(act: Actions): void {
  const p = state.mode === "practice" ? state.practice : null;
  $("p-practice").hidden = !p;
  if (!p) return;
  const exercise = p.list[p.at];
  $("practice-progress").textContent = `${progressText(p.at, p.list.length)} · ${p.solved} solved`;
  const box = $("practice-body");
  box.replaceChildren();
  box.dataset.index = String(exercise.index);
  box.dataset.step = p.judging ? "judging" : p.step;
  const line = paragraphs(box);
  const who = `${seatBadge(p.seat)} <b style="color:${SEAT_INK[p.seat]}">${seatName(p.seat)}</b>`;
  line("task", `${who} played ${describe(exercise.taken)} here, a <b class="class-${exercise.classification}">${classWords(exercise.classification)}</b>. Find a better move.`);
  if (p.judging) line("small judging", "judging your move…");
  const v = p.verdict;
  if (v && !p.judging) {
    line(`verdict class-${v.classification}`, "").textContent = verdictText(v, p.step);
    if (p.step === "shown" && v.bestAction) {
      line("best", `<b>best:</b> ${describe(v.bestAction)}`);
      if (v.decision.explanation) {
        const text = sentence(v.decision.explanation, { rules: tileFacts(), seatName });
        line("why", "").textContent = `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
      }
    }
  }
  const next = $<HTMLButtonElement>("practice-next");
  const last = p.at + 1 >= p.list.length;
  next.textContent = p.step === "trying" ? (last ? "Skip and finish" : "Skip") : last ? "Finish" : "Next";
  next.onclick = () => act.nextExercise();
  $("practice-leave").onclick = () => act.leavePractice();
}
