// The Puzzles view's panel: the filters (a theme, with how many puzzles each has, and a
// rating range), the player's puzzle rating and streak, the puzzle (its seat, rating and
// themes), the verdict of the last try, and once it is over the solution (ringed on the
// board) with why, and the rating's change; "Show the solution" while trying, then "Next
// puzzle"; and Leave.
import type { Actions } from "./actions";
import { SEAT_INK, seatBadge } from "./board";
import { $, paragraphs } from "./dom";
import { describe } from "./game";
import { seatName } from "./names";
import { state } from "./state";
import { RATINGS, puzzleVerdict, ratingChange, withRange } from "./trainer";

/** A select's options, rebuilt only when they change (so that a choice in progress stays). */
function fill(select: HTMLSelectElement, options: [string, string][], value: string): void {
  const key = JSON.stringify(options);
  if (select.dataset.options !== key) {
    select.replaceChildren(...options.map(([v, text]) => new Option(text, v)));
    select.dataset.options = key;
  }
  select.value = value;
}

const bound = (v: string) => (v === "" ? null : Number(v));

/** The Puzzles panel (hidden outside the Puzzles view). */
export function renderPuzzles(act: Actions): void {
  const z = state.mode === "puzzles" ? state.puzzles : null;
  $("p-puzzles").hidden = !z;
  if (!z) return;
  const f = z.filters;
  const theme = $<HTMLSelectElement>("puzzle-theme"), min = $<HTMLSelectElement>("puzzle-min");
  const max = $<HTMLSelectElement>("puzzle-max");
  fill(theme, [["", "every theme"], ...z.themes.map((t): [string, string] => [t.name, `${t.name} (${t.puzzles})`])], f.theme);
  fill(min, [["", "any"], ...RATINGS.map((r): [string, string] => [String(r), String(r)])], f.min === null ? "" : String(f.min));
  fill(max, [["", "any"], ...RATINGS.map((r): [string, string] => [String(r), String(r)])], f.max === null ? "" : String(f.max));
  theme.onchange = () => act.puzzleFilters({ ...f, theme: theme.value });
  min.onchange = () => act.puzzleFilters(withRange(f, bound(min.value), f.max));
  max.onchange = () => act.puzzleFilters(withRange(f, f.min, bound(max.value)));
  $("puzzle-rating").textContent = String(z.progress.rating);
  $("puzzle-streak").textContent = String(z.progress.streak);
  $("puzzle-score").title = `${z.progress.solved} of ${z.progress.played} puzzles solved at the first try; ` +
    `best streak ${z.progress.bestStreak}`;
  const box = $("puzzle-body");
  box.replaceChildren();
  const puzzle = z.puzzle;
  box.dataset.id = puzzle?.id ?? "";
  box.dataset.step = z.drawing ? "drawing" : z.judging ? "judging" : z.step;
  const line = paragraphs(box);
  const next = $<HTMLButtonElement>("puzzle-next");
  next.onclick = () => (z.puzzle && z.step === "trying" ? act.puzzleSolution() : act.puzzleNext());
  $("puzzle-leave").onclick = () => act.puzzleLeave();
  if (z.drawing || !puzzle) {
    line("small", z.drawing ? "drawing a puzzle…" : "No puzzle fits these filters: choose others.");
    next.textContent = "Next puzzle";
    next.disabled = z.drawing;
    return;
  }
  next.disabled = !!z.judging;
  const who = `${seatBadge(puzzle.seat)} <b style="color:${SEAT_INK[puzzle.seat]}">${seatName(puzzle.seat)}</b>`;
  line("task", `${who} to move, ${puzzle.players} players: find the best move.`);
  line("small facts", `rated ${puzzle.rating} · ${puzzle.themes.join(", ")} · ${z.matching} ${z.matching === 1 ? "puzzle fits" : "puzzles fit"}`);
  if (z.judging) line("small judging", "checking your move…");
  const v = z.verdict;
  if (v && !z.judging) {
    line(`verdict ${v.correct ? "correct" : "wrong"}`, "").textContent =
      puzzleVerdict(v.correct && z.step === "solved", z.misses, z.step);
    if (z.step !== "trying") {
      if (z.step === "shown") {
        line("solution", `<b>solution:</b> ${v.solutions.map((a) => describe(a)).join(" or ")}`);
      }
      const why = line("why", "");
      why.textContent = `${v.sentence.charAt(0).toUpperCase()}${v.sentence.slice(1)}.${v.exact ? " (Proved by the endgame solver.)" : ""}`;
      if (z.before !== null) line("small change", "").textContent = `rating ${ratingChange(z.before, z.progress.rating)}`;
    }
  }
  next.textContent = z.step === "trying" ? "Show the solution" : "Next puzzle";
}
