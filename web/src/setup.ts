// Setting up: the token (from the address or this tab), the server's levels and rules
// facts, and the New game dialog (players, a human or an AI level per seat, the seed),
// whose Start calls the function it is given.
import { explainError, needsToken } from "@cacaoai/client";
import { client, setToken } from "./api";
import { seatBadge } from "./board";
import { $, explain, say } from "./dom";
import { setRules } from "./game";
import { seatName } from "./names";
import { redraw } from "./redraw";
import { closeReview, leavePuzzles, state, stopAnalysis, stopFilling, stopThinking } from "./state";
import type { SeatKind } from "./state";

const TOKEN_KEY = "cacao-token";

/** The token from the address (`#token=...`, then dropped from it) or this tab's storage. */
export function takeToken(): string {
  const fromAddress = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromAddress !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromAddress);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

/** The server's levels and rules facts (tile names and faces, the water track, limits). */
export async function loadLevels(): Promise<void> {
  try {
    const info = await client.getServerInfo({});
    state.levels = info.levels.map((l) => l.name);
    if (info.rules) setRules(info.rules);
  } catch (e) {
    if (needsToken(e)) {
      say(`This server needs a token: enter it under New game, or open the page as ${location.origin}/#token=YOUR_TOKEN`,
        true, `${explainError(e).code}: ${explainError(e).message}`);
    } else {
      explain(e);
    }
  }
}

function levelOptions(selected: string): string {
  const ai = [...state.levels.map((l) => [l, `AI ${l}`]), ["time:1", "AI thinks 1 s"], ["time:3", "AI thinks 3 s"]];
  return [["human", "human"], ...ai].map(([v, t]) =>
    `<option value="${v}"${v === selected ? " selected" : ""}>${t}</option>`).join("");
}

/** What Start does: a new game of `players` with these seats and seed. */
export type Start = (players: number, seats: SeatKind[], seed: number) => void;

/** The New game dialog; Start calls `start`. */
export function buildSetup(start: Start): void {
  const rows = [0, 1, 2, 3].map((s) => `<label class="seat-row" data-seat="${s}">
    ${seatBadge(s, 14)} seat ${s} (${seatName(s)})
    <select id="seat-${s}">${levelOptions(s === 0 ? "human" : "casual")}</select></label>`).join("");
  $("setup-seats").innerHTML = rows;
  const players = $<HTMLSelectElement>("players");
  const sync = () => document.querySelectorAll<HTMLElement>(".seat-row").forEach((row) => {
    row.style.display = Number(row.dataset.seat) < Number(players.value) ? "" : "none";
  });
  players.onchange = sync;
  sync();
  $("start").onclick = async () => {
    const token = $<HTMLInputElement>("token").value.trim();
    if (token !== (sessionStorage.getItem(TOKEN_KEY) ?? "")) {
      sessionStorage.setItem(TOKEN_KEY, token);
      setToken(token);
      if (!state.levels.length) {  // refused before: ask again with the token
        await loadLevels();
        buildSetup(start);
        return;
      }
    }
    const n = Number(players.value);
    const seats = [...Array(n).keys()].map((s) => $<HTMLSelectElement>(`seat-${s}`).value);
    const seedText = $<HTMLInputElement>("seed").value.trim();
    start(n, seats, seedText ? Number(seedText) : Math.floor(Math.random() * 1e9));
  };
}

export function showSetup(): void {
  stopThinking();
  stopAnalysis();
  stopFilling();
  closeReview();
  leavePuzzles();
  state.mode = state.game ? "play" : "setup";
  $("setup").hidden = false;
  redraw.page();
}
