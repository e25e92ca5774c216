// The panels beside the board: the seats (hands, gold, cacao, sun, water), the score if
// the game ended now, the display and the temples, the choices a human must make, the
// evaluation (bar, legend, candidates), the game's graph and the result. Their controls
// do what the Actions they are given say.
import { Phase } from "@cacaoai/client";
import type { Action, Fill, Forecast, GameResult, PartForecast, Standing, WorkerTile } from "@cacaoai/client";
import type { Actions } from "./actions";
import { CELL, SEAT_COLOURS, SEAT_INK, SEAT_ON, jungleTile, seatBadge, workerTile } from "./board";
import { $ } from "./dom";
import {
  describe, fillsOf, jungleName, maxCacao, maxSun, placement, sameAction, signed, waterTrack, workerName,
} from "./game";
import { drawGraph, graphPoints } from "./graph";
import { reviewMarks, reviewPoints } from "./review";
import { SEAT_SYMBOLS, seatName } from "./names";
import { handTiles } from "./placing";
import { exactSeats, populationText, solved } from "./record";
import {
  actionsShown, aiOnly, candidatesHidden, currentPosition, currentScores, evaluateEveryMove, humanPosition, isHuman, judgedOf,
  seatKind, shownReview, solving, solvingSeat, state, visibleEvaluation,
} from "./state";
import { turnStory, whyChoose } from "./story";

/** Candidates listed under the evaluation. */
const LISTED = 6;

/** A seat's name in the story: its colour, and who plays it. */
function who(seat: number): string {
  if (state.mode !== "play" || !state.game) return seatName(seat);
  const humans = state.game.seats.filter((k) => k === "human").length;
  return `${seatName(seat)} (${isHuman(seat) ? (humans > 1 ? "human" : "you") : "AI"})`;
}

/** The last turn step by step (a placement, then each result chosen) and, when a seat
 *  chooses during another's turn, why. */
export function renderStory(): void {
  const p = currentPosition();
  const steps = p ? turnStory(actionsShown(), p, who) : [];
  $("turn").hidden = !steps.length;
  $("story").replaceChildren(...steps.map((text, i) => {
    const li = document.createElement("li");
    li.textContent = text;
    if (i === steps.length - 1) li.className = "latest";
    return li;
  }));
}

/** A worker tile as a small picture of its own. */
export function miniTile(tile: WorkerTile, seat: number, rotation = 0, cls = ""): SVGSVGElement {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
  svg.setAttribute("class", `mini ${cls}`);
  workerTile(svg, tile, seat, rotation, 0, 0);
  return svg;
}

export function renderSeats(act: Actions): void {
  const p = currentPosition();
  const box = $("seats");
  box.replaceChildren();
  if (!p) return;
  const { standing } = currentScores();
  const track = waterTrack();
  p.seats.forEach((s, i) => {
    const score = standing?.seats[i];
    const div = document.createElement("div");
    div.className = "seat" + (p.toAct === i && p.phase !== Phase.OVER ? " to-act" : "");
    div.dataset.seat = String(i);
    div.style.borderColor = SEAT_COLOURS[i];
    const who = state.mode === "play" ? (isHuman(i) ? "human" : `AI ${seatKind(i).replace("time:", "")}`) : "";
    const waterGold = track.length ? track[s.water] : undefined;
    div.innerHTML = `<div class="seat-head">${seatBadge(i, 14)}
      <b style="color:${SEAT_INK[i]}">${seatName(i)}</b> <span class="who">${who}</span>
      ${score ? `<span class="if-ended" title="gold ${s.gold} ${signed(score.temples)} temples ${signed(score.sun)} sun ${signed(score.water)} water">${p.phase === Phase.OVER ? "final" : "if it ended now"}: <b>${score.total}</b></span>` : ""}</div>
      <div class="stats"><span title="gold held"><i class="tok gold"></i><b class="gold">${s.gold}</b> gold</span>
      <span title="cacao (at most ${maxCacao()}; breaks ties)"><i class="tok cacao"></i><b>${s.cacao}</b> cacao</span>
      <span title="sun tokens (at most ${maxSun()})"><i class="tok sun"></i><b>${s.sun}</b> sun</span>
      <span class="water" title="the water carrier on space ${s.water} of ${Math.max(track.length - 1, 0)}: worth ${waterGold ?? "?"} gold at the end"><i class="tok water"></i>water <b>${waterGold === undefined ? s.water : signed(waterGold)}</b> gold</span>
      <span title="tiles left in the draw pile">pile ${s.pileCount}</span></div>`;
    const hand = document.createElement("div");
    hand.className = "hand";
    const solver = solvingSeat(); // a practice or a puzzle: from its seat's view only
    const shown = solver !== null ? solver === i : state.mode === "replay" || isHuman(i) || p.phase === Phase.OVER;
    if (shown) {
      const choosable = p.toAct === i && p.phase === Phase.TURN &&
        (solver !== null ? humanPosition() === p : state.mode === "play" && isHuman(i));
      const usable = handTiles(state.legal);
      s.hand.forEach((t, k) => {
        const mini = miniTile(t, i, 0, choosable && t === state.tile && s.hand.indexOf(t) === k ? "chosen" : "");
        mini.dataset.tile = workerName(t);
        if (choosable && usable.includes(t)) {
          mini.classList.add("choosable");
          mini.addEventListener("click", () => act.chooseTile(t));
        }
        hand.appendChild(mini);
      });
    } else {
      hand.textContent = `${s.handCount} tiles in hand`;
    }
    div.appendChild(hand);
    box.appendChild(div);
  });
  $("scores").innerHTML = standing ? scoreTable(standing) : "";
  $("p-scores").hidden = p.phase === Phase.OVER; // the result shows the same table
  const display = $("display");
  display.replaceChildren();
  for (const t of p.display) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
    svg.setAttribute("class", "mini");
    jungleTile(svg, t, 0, 0);
    display.appendChild(svg);
  }
  $("deck").textContent = `${p.jungleDeckCount} in the jungle deck`;
  const list = $("temples");
  list.replaceChildren();
  for (const t of standing?.temples ?? []) {
    const li = document.createElement("li");
    const most = Math.max(...t.workers);
    li.innerHTML = `temple (${t.x},${t.y}): ` + (most === 0 ? "nobody yet" : t.workers.map((n, s) => n ?
      `<span style="color:${SEAT_INK[s]}" class="${n === most ? "lead" : ""}">${SEAT_SYMBOLS[s]} ${seatName(s)} ${n}${t.gold[s] ? ` (${signed(t.gold[s])})` : ""}</span>` : "")
      .filter(Boolean).join(", "));
    list.appendChild(li);
  }
}

/** Each seat's gold by part (held, temples, sun, water) and the total: the final result's
 *  gold at the end, what the seat would end with now before it. */
function scoreTable(standing: Standing, result?: GameResult): string {
  const rows = standing.seats.map((s) => {
    const won = result?.winners.includes(s.seat);
    return `<tr data-seat="${s.seat}"${won ? ' class="won" title="wins"' : ""}><th scope="row">${seatBadge(s.seat)} <span style="color:${SEAT_INK[s.seat]}">${seatName(s.seat)}</span></th>
      <td class="gold">${s.gold}</td><td class="temples">${signed(s.temples)}</td><td class="sun">${signed(s.sun)}</td>
      <td class="water">${signed(s.water)}</td><td class="total"><b>${s.total}</b></td><td class="cacao">${s.cacao}</td></tr>`;
  }).join("");
  return `<table class="score-table"><thead><tr><th scope="col">seat</th><th scope="col" title="gold held">gold</th>
    <th scope="col" title="the temples' majorities">temples</th><th scope="col" title="gold for the sun tokens">sun</th>
    <th scope="col" title="the water carrier's space">water</th><th scope="col">total</th><th scope="col" title="breaks a tie">cacao</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

const describeFill = (f: Fill) => `${jungleName(f.tile)} to (${f.x},${f.y})`;

function markPreviewed(): void {
  document.querySelectorAll("#choices button.choice").forEach((b, i) => b.classList.toggle("previewed", i === state.choice));
}

export function renderChoices(act: Actions): void {
  const box = $("choices");
  box.replaceChildren();
  const practising = solving();
  const p = practising ? humanPosition() : state.game?.position;
  if (!p || (!practising && (state.mode !== "play" || !isHuman(p.toAct) || state.thinking))) return;
  let offered: Action[] = state.choices ?? [];
  let title = "Which display tile goes where?";
  if (!state.choices) {
    offered = state.legal.filter((a) => a.kind.case === "resolve" || a.kind.case === "discard");
    title = p.phase === Phase.RESOLVE ? `${seatName(p.toAct!)}: choose your result` : "No placement: discard a tile";
    const overbuilds = state.legal.filter((a) => a.kind.case === "overbuild");
    if (overbuilds.length && state.legal.some((a) => a.kind.case === "place")) {
      const hint = document.createElement("p");
      hint.textContent = "Overbuild (1 sun): choose one of your own tiles (ringed).";
      box.appendChild(hint);
    }
  }
  if (!offered.length) return;
  const h = document.createElement("h3");
  h.textContent = title;
  box.appendChild(h);
  const why = state.choices ? "" : whyChoose(actionsShown(), p, who);
  if (why && p.toAct !== p.mover) {
    const note = document.createElement("p");
    note.className = "small why";
    note.textContent = why;
    box.appendChild(note);
  }
  if (state.choices) {
    const q = placement(state.choices[0])!;
    const note = document.createElement("p");
    note.className = "small";
    note.textContent = `Your ${workerName(q.tile)} at (${q.x},${q.y}) closes the cells marked ? on the board; ` +
      "each way is drawn there as you point at it (tap once to see it, again to play it).";
    box.appendChild(note);
  }
  let pointer = "";
  offered.forEach((a, i) => {
    const tapped = state.choices && state.tapped === i;
    const b = document.createElement("button");
    b.className = "choice" + (state.choices && i === state.choice ? " previewed" : "") + (tapped ? " tapped" : "");
    b.textContent = state.choices ? fillsOf(a).map(describeFill).join(", ") : describe(a);
    if (state.choices) {
      const preview = () => { if (state.choice !== i) { act.preview(i); markPreviewed(); } };
      b.onpointerenter = (e) => { if (e.pointerType === "mouse") preview(); };
      b.onfocus = preview;
      b.onpointerdown = (e) => { pointer = e.pointerType; };
      b.onclick = () => { // a finger: the first tap shows the way, a second plays it
        const touch = pointer !== "" && pointer !== "mouse";
        pointer = "";
        if (touch && state.tapped !== i) {
          state.tapped = i;
          preview();
          document.querySelectorAll("#choices button.choice").forEach((c, k) => c.classList.toggle("tapped", k === i));
          return;
        }
        act.move(a);
      };
    } else {
      b.onclick = () => act.move(a);
    }
    box.appendChild(b);
  });
  if (state.choices) {
    const c = document.createElement("button");
    c.textContent = "cancel";
    c.onclick = () => act.cancelChoice();
    box.appendChild(c);
  }
}

/** Beside the win bar, with the forecast overlay on: each seat's expected final score by
 *  part (temples, water, sun, gold held) and in all, mean ± spread. */
function renderForecastParts(forecast: Forecast | undefined): void {
  const box = $("forecast-parts");
  box.hidden = !state.forecast || !forecast || solving();
  box.replaceChildren();
  if (box.hidden || !forecast) return;
  const part = (f: PartForecast | undefined) => (f ? `${f.mean.toFixed(1)}<small>±${f.spread.toFixed(1)}</small>` : "–");
  const rows = forecast.seats.map((s) => `<tr data-seat="${s.seat}"><th scope="row">${seatBadge(s.seat)}</th>
    <td>${part(s.temples)}</td><td>${part(s.water)}</td><td>${part(s.sun)}</td><td>${part(s.gold)}</td>
    <td class="total"><b>${part(s.total)}</b></td></tr>`).join("");
  box.innerHTML = `<table class="forecast-table"><caption>expected final score (${forecast.playouts} playouts)</caption>
    <thead><tr><th scope="col">seat</th><th scope="col">temples</th><th scope="col">water</th><th scope="col">sun</th>
    <th scope="col">gold</th><th scope="col">total</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderEvaluation(act: Actions): void {
  const shown = visibleEvaluation();
  const bar = $("evalbar"), legend = $("evallegend");
  const details = $("evaluation");
  bar.replaceChildren();
  legend.replaceChildren();
  details.replaceChildren();
  details.dataset.hash = shown?.hash ?? "";
  const p = currentPosition();
  const result = currentScores().result;
  if (p?.phase === Phase.OVER && result) { // the result: the winners share the bar
    bar.classList.remove("empty");
    bar.classList.add("over");
    for (const s of [...Array(p.players).keys()]) {
      const won = result.winners.includes(s);
      const part = document.createElement("div");
      part.className = "evalpart";
      part.dataset.seat = String(s);
      part.style.flexGrow = won ? String(1 / result.winners.length) : "0";
      part.style.background = SEAT_COLOURS[s];
      part.style.color = SEAT_ON[s];
      part.textContent = won ? `${SEAT_SYMBOLS[s]} ${seatName(s)} wins` : "";
      bar.appendChild(part);
      const gold = result.seats.find((r) => r.seat === s)?.gold ?? 0;
      const label = document.createElement("span");
      label.dataset.seat = String(s);
      label.innerHTML = `${seatBadge(s)} ${seatName(s)} ${gold}<span class="wide"> gold</span>`; // the bar says who won
      if (won) { label.className = "won"; label.title = `${seatName(s)} wins with ${gold} gold`; }
      legend.appendChild(label);
    }
    details.textContent = "the game is over: the graph below shows how the chances went";
    return;
  }
  bar.classList.remove("over");
  renderForecastParts(shown && !candidatesHidden(shown.seat) ? shown.ev.forecast : undefined); // as the candidates
  if (solving()) {
    details.textContent = `hidden while you ${state.mode === "practice" ? "practise" : "solve a puzzle"}: find the move yourself`;
    bar.classList.add("empty");
    return;
  }
  if (!shown || !shown.ev.seats.length) {
    const searching = (state.thinking || state.analysis || state.quick || state.mode === "replay") && p?.phase !== Phase.OVER
      && (state.mode !== "play" || aiOnly() || evaluateEveryMove() || !!state.analysis);
    details.textContent = shown ? "a single action: nothing to search" : searching ? "evaluating this position…"
      : state.mode === "play" ? "hidden while you play: press Analyse, or tick “evaluate every move”" : "no evaluation yet: press Analyse";
    bar.classList.add("empty");
    return;
  }
  bar.classList.remove("empty");
  const { ev, seat } = shown;
  for (const s of ev.seats) {
    const part = document.createElement("div");
    const w = s.winProbability;
    part.style.flexGrow = String(Math.max(w, 0.001));
    part.style.background = SEAT_COLOURS[s.seat];
    part.style.color = SEAT_ON[s.seat];
    part.className = "evalpart";
    part.dataset.seat = String(s.seat);
    part.textContent = w >= 0.12 ? `${SEAT_SYMBOLS[s.seat]} ${Math.round(w * 100)}%` : "";
    part.title = `${seatName(s.seat)}: win ${(w * 100).toFixed(1)}%, expected gold ${s.expectedGold.toFixed(1)}`;
    bar.appendChild(part);
    const label = document.createElement("span");
    label.dataset.seat = String(s.seat);
    label.innerHTML = `${seatBadge(s.seat)} ${seatName(s.seat)} ${w < 0.005 && w > 0 ? "<1" : Math.round(w * 100)}%`;
    legend.appendChild(label);
  }
  const exact = exactSeats(ev), every = exact.length > 0 && exact.length === ev.seats.length;
  const exactFor = exact.length && !every ? seatName(exact[0]) : ""; // 3-4 players: the seat to act
  if (exact.length) { // the endgame solver proved it: a badge before the seats' chances
    const badge = document.createElement("span");
    badge.className = "exact-badge";
    badge.textContent = "exact";
    badge.title = every ? "solved exactly by the endgame solver: every figure is exact"
      : `exact for ${exactFor}: what ${exactFor} gets if all the other seats play together against it`;
    legend.prepend(badge);
  }
  const head = document.createElement("div");
  head.className = "evalhead";
  head.dataset.sequence = String(shown.seq);
  head.dataset.iterations = String(ev.iterations);
  head.dataset.exact = String(ev.exact);
  head.textContent = solved(ev) ? `final: solved exactly by the endgame solver, for ${seatName(seat)}`
    : `${ev.final ? "final" : "searching…"} ${Number(ev.iterations).toLocaleString()} iterations, for ${seatName(seat)}`;
  details.appendChild(head);
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>seat</th><th>win</th><th>gold</th></tr>" + ev.seats.map((s) =>
    `<tr><td style="color:${SEAT_INK[s.seat]}">${SEAT_SYMBOLS[s.seat]} ${seatName(s.seat)}</td>
     <td>${(s.winProbability * 100).toFixed(0)}%${exact.includes(s.seat) ? ' <small class="exact-mark">exact</small>' : ""}</td>
     <td>${s.expectedGold.toFixed(1)}</td></tr>`).join("");
  details.appendChild(table);
  if (exactFor) { // 3-4 players: the seat to act's figures are paranoid, the others' the search's
    const note = document.createElement("p");
    note.className = "small exact-note";
    note.textContent = `Exact for ${exactFor}: what ${exactFor} gets if all the other seats play together against it; ` +
      "the other seats' chances are the search's.";
    details.appendChild(note);
  }
  const whose = populationText(ev.population);
  if (whose) { // whose play the chances assume: the players the search was told of, or strong play
    const note = document.createElement("p");
    note.className = "small population";
    note.textContent = `win chances ${whose}`;
    details.appendChild(note);
  }
  if (candidatesHidden(seat)) {
    const note = document.createElement("p");
    note.className = "small";
    note.textContent = "The AI's candidate moves stay hidden: they would show its hand.";
    details.appendChild(note);
    return;
  }
  const r = state.replay;
  const next = state.mode === "replay" && r ? r.record.actions[r.index] : undefined;
  if (next) {
    const played = document.createElement("p");
    const best = ev.bestAction && sameAction(ev.bestAction, next);
    played.innerHTML = `<b>played next:</b> ${describe(next)}${best ? " — the AI's choice too" : ""}`;
    details.appendChild(played);
  }
  if (state.heat !== "off" && ev.candidates.some((c) => c.action && placement(c.action))) {
    const note = document.createElement("p");
    note.className = "small heat-note";
    note.textContent = "On the board: each cell's best win chance, as in the list; its colour: " +
      `${state.heat === "visits" ? "how much the search looked at it" : "the win chance"} (darker is more); ★ the AI's choice.`;
    details.appendChild(note);
  }
  const ol = document.createElement("ol");
  ol.className = "candidates";
  for (const c of ev.candidates.slice(0, LISTED)) {
    const action = c.action;
    if (!action) continue;
    const li = document.createElement("li");
    li.textContent = `${describe(action)} — ${(c.winProbability * 100).toFixed(0)}% win${c.exact ? " (exact)" : ""}`;
    li.title = c.exact && !c.visits ? "proved by the endgame solver" : `searched ${Number(c.visits).toLocaleString()} times` +
      (c.exact ? ", its values proved by the endgame solver" : "");
    if (c.exact) li.classList.add("exact");
    const g = state.game;
    if (state.mode === "play" && g && isHuman(g.position.toAct) && state.legal.some((a) => sameAction(a, action))) {
      const b = document.createElement("button");
      b.textContent = "play";
      b.onclick = () => act.move(action);
      li.appendChild(b);
    }
    ol.appendChild(li);
  }
  details.appendChild(ol);
}

export function renderGraph(act: Actions): void {
  const panel = $("p-graph");
  const r = state.replay, g = state.game;
  const source = state.mode === "replay" ? r : state.mode === "play" && g && (state.over || aiOnly()) ? g : null;
  panel.hidden = !source;
  if (!source) return;
  const record = source.record, n = record.actions.length;
  const result = source === r ? (r!.result && r!.index === n ? r!.result : record.result) : g!.result;
  const review = shownReview(), judged = review ? judgedOf(review) : [];
  const points = review ? reviewPoints(judged, record.players) : graphPoints(source.evals, record.players, n, result ?? undefined);
  const current = state.mode === "replay" && r ? r.index : null;
  drawGraph($("graph"), points, n, record.players, current, (index) => act.showMoment(index),
    review ? reviewMarks(judged) : []);
  $("graph-note").textContent = review
    ? "Each seat's chance to win before and after each of its moves, from its own view: ?! an inaccuracy, " +
      "? a mistake, ?? a blunder. Click to see that moment."
    : "Each seat's chance to win after every action; click to see that moment.";
  $("graph").dataset.points = String(points.length);
  $("graph").dataset.review = review ? "true" : "false";
  $("graph").dataset.filling = String(!!state.filling);
}

/** The result at the end: who won, and each seat's gold by part (the service's standing). */
export function renderResult(): void {
  const box = $("result");
  const p = currentPosition();
  const { result, standing } = currentScores();
  box.hidden = !(p?.phase === Phase.OVER && result);
  $("review-offer").hidden = box.hidden || state.mode !== "play"; // after a game: where was it won or lost?
  if (box.hidden || !result) return;
  const winners = result.winners.map((s) => seatName(s)).join(" and ");
  const gold = result.seats.find((s) => s.seat === result.winners[0])?.gold;
  box.innerHTML = `<h2>${winners} win${result.winners.length > 1 ? "" : "s"} with ${gold} gold</h2>` +
    (standing ? scoreTable(standing, result) : result.seats.map((s) =>
      `<span style="color:${SEAT_INK[s.seat]}">${seatName(s.seat)}: ${s.gold} gold, ${s.cacao} cacao</span>`).join("<br>")) +
    `<p class="small">gold held, then the end's scoring: the temples' majorities, gold for sun tokens, the water carrier's space; cacao breaks a tie.</p>`;

}
