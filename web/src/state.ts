// The page's state: the mode (setup, play, replay, practice, puzzles), the game being played,
// the record in the replay viewer, a practice, the puzzles being solved, what the human is
// choosing on the board, the searches running, and the AI-only game's pace; with the
// questions every part asks of it (which position is shown, which seats are human, may a
// human place now, where the chosen tile may go) and the stopping of the searches and the
// review. The bottom of the page: it imports no view and no controller.
import { Phase } from "@cacaoai/client";
import type {
  Action, CheckPuzzleResponse, DecisionReview, Evaluation, Exercise, GameRecord, GameResult, Position, Puzzle,
  PuzzleProgress, PuzzleTheme, ReviewSummary, Standing, Verdict, WorkerTile,
} from "@cacaoai/client";
import { SEAT_COLOURS, SEAT_INK, SEAT_LIGHT, SEAT_ON, WATER } from "./board";
import type { Cell, HeatBy } from "./board";
import type { Step } from "./drill";
import { ghostRotation, targetsOf } from "./placing";
import type { Target } from "./placing";
import { cut } from "./record";
import { judged } from "./review";
import type { Judged } from "./review";
import type { Filters } from "./trainer";

export type SeatKind = "human" | string; // "human" or an AI level ("casual", "time:2")
/** A game being played: its record (the source of every request), the position
 *  it reaches, the service's standing and result there, and the evaluation kept of
 *  each position reached (by the number of actions before it), for the game's graph. */
export interface Game {
  record: GameRecord; position: Position; hash: string; seats: SeatKind[]; seed: number;
  standing?: Standing; result?: GameResult; evals: Map<number, Evaluation>;
}
/** A record in the replay viewer, at action `index` (`position`: the position there). */
export interface Replay {
  record: GameRecord; index: number; evals: Map<number, Evaluation>;
  standing?: Standing; result?: GameResult; hash: string; position?: Position;
}
/** A review of the record in the replay viewer: the decisions judged so far (by action
 *  index), how many the review reports in all (0 before its first report), its summary
 *  at the end, and while it runs the controller that cancels it. */
export interface Review {
  record: GameRecord; decisions: Map<number, DecisionReview>; total: number;
  summary: ReviewSummary | null; running: AbortController | null; stopped: boolean;
}
/** Practising a review's mistakes: the exercises of `seat` (the review's inaccuracies,
 *  mistakes and blunders), the one shown (`at`) with its position from that seat's view,
 *  the misses there so far, the last try's verdict, where the exercise stands (`step`),
 *  the exercises solved, and while a try is judged the controller that cancels it. */
export interface Practice {
  review: Review; seat: number; list: Exercise[]; at: number;
  position?: Position; hash: string; standing?: Standing;
  misses: number; verdict: Verdict | null; step: Step; solved: number; judging: AbortController | null;
}
/** Solving puzzles: the filters and the server's themes (with their counts), the puzzle
 *  shown (none while one is drawn, or when none fits) with its position's hash and standing,
 *  how many fit, the misses at it so far, the last try's verdict, where the puzzle stands
 *  (`step`), the player's rating and streak before it (`before`: the rating the last verdict
 *  moved) and now, the ids seen, and while a try is judged the controller that cancels it. */
export interface Puzzles {
  filters: Filters; themes: PuzzleTheme[]; drawing: boolean;
  puzzle?: Puzzle; hash: string; standing?: Standing; matching: number;
  misses: number; verdict: CheckPuzzleResponse | null; step: Step; judging: AbortController | null;
  progress: PuzzleProgress; before: number | null; seen: string[];
}
/** An evaluation on show, with the position it belongs to. */
export interface Shown { ev: Evaluation; hash: string; seat: number; seq: number }
export type Mode = "setup" | "play" | "replay" | "practice" | "puzzles";

export const state = {
  mode: "setup" as Mode,
  levels: [] as string[],
  game: null as Game | null,
  replay: null as Replay | null,
  review: null as Review | null,
  reviewIterations: 0, // each decision's search in a review (0: the service's default)
  reviewSeed: 1, // the review's seed (a practice's tries are judged with it too)
  reviewDecisions: [] as number[], // the decisions a review judges (empty: all; tests plant one)
  practice: null as Practice | null,
  puzzles: null as Puzzles | null,
  puzzleSeed: null as number | null, // the puzzles' draws' seed (null: random; the screenshots set one)
  forecast: false, // the evaluations ask for a forecast of the temples and the score parts
  // what a human chooses on the board
  legal: [] as Action[],
  tile: null as WorkerTile | null, // the hand tile chosen for placing
  rotation: 0,
  hover: null as Cell | null, // the cell under the mouse
  selected: null as Cell | null, // the cell a tap or the keyboard chose (a second tap places)
  choices: null as Action[] | null, // several actions for one cell (which display tile goes where)
  choice: 0, // the choice drawn on the board
  tapped: -1, // the choice a finger tapped once (a second tap plays it)
  busy: false, // a move is on its way: the page takes no other
  // the searches running (each stopped by its controller)
  thinking: null as AbortController | null,
  analysis: null as AbortController | null,
  quick: null as AbortController | null, // the evaluation bar's search
  filling: null as AbortController | null, // the evaluations the graph still needs
  evaluation: null as Shown | null,
  message: "",
  everyMove: false, // "evaluate every move": the AI's view shown while a human plays
  heat: "visits" as HeatBy | "off",
  // an AI-only game's pace
  pace: "auto" as "auto" | number, // ms between an AI's moves
  paused: false,
  held: false, // an AI move waits for Resume or Step
  steps: 0, // actions Step lets through while paused
  release: null as ((go: boolean) => void) | null,
  lastMoveAt: 0,
  moveTimes: [] as { at: number; seat: number; ai: boolean }[], // when each action was applied (performance.now)
  palette: { seats: SEAT_COLOURS, light: SEAT_LIGHT, ink: SEAT_INK, on: SEAT_ON, water: WATER }, // for tests
  /** The game being played is over. */
  get over(): boolean { return state.game?.position.phase === Phase.OVER; },
};

export const seatKind = (s: number): SeatKind => state.game?.seats[s] ?? "human";
export const isHuman = (s: number | undefined) => s !== undefined && seatKind(s) === "human";
export const aiOnly = () => !!state.game && !state.game.seats.includes("human");

export function currentPosition(): Position | null {
  if (state.mode === "replay") return state.replay?.position ?? null;
  if (state.mode === "practice") return state.practice?.position ?? null;
  if (state.mode === "puzzles") return state.puzzles?.puzzle?.position ?? null;
  return state.game?.position ?? null;
}

/** The hash of the position shown: an evaluation of any other is never shown. */
export function currentHash(): string {
  if (state.mode === "practice") return state.practice?.hash ?? "";
  if (state.mode === "puzzles") return state.puzzles?.hash ?? "";
  return (state.mode === "replay" ? state.replay?.hash : state.game?.hash) ?? "";
}

/** The record that reaches the position shown (in the replay viewer: cut at its action). */
export function currentRecord(): GameRecord | null {
  const r = state.replay;
  if (state.mode === "replay") return r ? cut(r.record, r.index) : null;
  if (state.mode === "practice") return practiceExercise()?.record ?? null;
  if (state.mode === "puzzles") return null; // a puzzle is a seat's view: no record reaches it
  return state.game?.record ?? null;
}

/** The actions played before the position shown. */
export function actionsShown(): Action[] {
  const r = state.replay;
  if (state.mode === "replay") return r ? r.record.actions.slice(0, r.index) : [];
  if (state.mode === "practice") return practiceExercise()?.record.actions ?? [];
  if (state.mode === "puzzles") return [];
  return state.game?.record.actions ?? [];
}

/** The service's standing and result for the position shown. */
export function currentScores(): { standing?: Standing; result?: GameResult } {
  if (state.mode === "practice") return state.practice ?? {};
  if (state.mode === "puzzles") return state.puzzles ?? {};
  return (state.mode === "replay" ? state.replay : state.game) ?? {};
}

/** The evaluation of the position shown, if there is one. */
export function visibleEvaluation(): Shown | null {
  const shown = state.evaluation;
  return shown && shown.hash === currentHash() ? shown : null;
}

/** The AI's candidates stay hidden while it plays a human: they would show its hand. */
export function candidatesHidden(seat: number): boolean {
  return state.mode === "play" && !isHuman(seat) && !!state.game?.seats.includes("human");
}

/** The exercise shown in a practice. */
export function practiceExercise(): Exercise | null {
  const p = state.practice;
  return state.mode === "practice" && p ? p.list[p.at] ?? null : null;
}

/** A practice or a puzzle: the player finds the move alone (no AI's view, no analysis). */
export const solving = () => state.mode === "practice" || state.mode === "puzzles";

/** The seat whose move the player finds in a practice or a puzzle (its view alone is shown); null otherwise. */
export function solvingSeat(): number | null {
  if (state.mode === "practice") return state.practice?.seat ?? null;
  if (state.mode === "puzzles") return state.puzzles?.puzzle?.seat ?? null;
  return null;
}

/** The answer on show: a practice's best action after two misses, a puzzle's solution once
 *  it is solved or shown; with the seat it is for. */
export function shownAnswer(): { action: Action; seat: number } | null {
  const p = state.mode === "practice" ? state.practice : null;
  if (p?.step === "shown" && p.verdict?.bestAction) return { action: p.verdict.bestAction, seat: p.seat };
  const z = state.mode === "puzzles" ? state.puzzles : null;
  const solution = z?.step !== "trying" ? z?.verdict?.solutions[0] : undefined;
  return z?.puzzle && solution ? { action: solution, seat: z.puzzle.seat } : null;
}

/** The position a human decides now: the game's, a human to act and no search or move
 *  on its way; or the practice's or the puzzle's, waiting for a try. */
export function humanPosition(): Position | null {
  if (state.mode === "practice") {
    const p = state.practice;
    return p && p.step === "trying" && !p.judging ? p.position ?? null : null;
  }
  if (state.mode === "puzzles") {
    const z = state.puzzles;
    return z && z.step === "trying" && !z.judging && !z.drawing ? z.puzzle?.position ?? null : null;
  }
  const g = state.game;
  return state.mode === "play" && g && isHuman(g.position.toAct) && !state.thinking && !state.busy ? g.position : null;
}

/** A human may place a tile now. */
export function placing(): boolean {
  const p = humanPosition();
  return !!p && p.phase === Phase.TURN && !!state.tile;
}

/** The cell the ghost is drawn on: the one chosen, else the one under the mouse. */
export const focusCell = () => state.selected ?? state.hover;

/** The cells the chosen tile may go to (a human's turn, no fill choice open). */
export function boardTargets(): Map<string, Target> {
  if (!placing() || state.choices) return new Map();
  return targetsOf(state.legal, state.tile);
}

/** The rotation the chosen tile is drawn at on `cell`. */
export const ghostAt = (cell: Cell | null = focusCell()) => ghostRotation(state.legal, state.tile, state.rotation, cell);

/** The AI's view is shown while a human plays only on request: "evaluate every move", or
 *  Analyse (a game of AIs only shows it all along, and every game at its end). */
export const evaluateEveryMove = () => state.everyMove;

export function stopThinking(): void { state.thinking?.abort(); state.thinking = null; }
export function stopAnalysis(): void {
  state.analysis?.abort(); state.analysis = null;
  state.quick?.abort(); state.quick = null;
}
export function stopFilling(): void { state.filling?.abort(); state.filling = null; }

/** The judged decisions of a review. */
export const judgedOf = (review: Review): Judged[] => [...review.decisions.values()].map(judged);

/** The review of the record in the replay viewer, if there is one. */
export function shownReview(): Review | null {
  const v = state.review;
  return state.mode === "replay" && v && state.replay?.record === v.record ? v : null;
}

/** Cancels a running review (its reports so far stay on show). */
export function stopReview(): void {
  const v = state.review;
  if (!v?.running) return;
  v.running.abort();
  v.running = null;
  v.stopped = true;
}

/** Cancels the review and leaves it: the graph shows the evaluations again. */
export function closeReview(): void {
  stopReview();
  leavePractice();
  state.review = null;
}

/** Leaves the puzzles (a try being judged is cancelled). */
export function leavePuzzles(): void {
  const z = state.puzzles;
  if (!z) return;
  z.judging?.abort();
  state.puzzles = null;
  if (state.mode === "puzzles") state.mode = state.game ? "play" : "setup";
  state.legal = [];
  state.choices = null;
  state.selected = null;
}

/** Leaves a practice (a try being judged is cancelled); the replay viewer shows again. */
export function leavePractice(): void {
  const p = state.practice;
  if (!p) return;
  p.judging?.abort();
  state.practice = null;
  if (state.mode === "practice") state.mode = "replay";
  state.legal = [];
  state.choices = null;
  state.selected = null;
}
