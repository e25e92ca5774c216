// src/api.ts
var SERVICE = "/cacao.v1.CacaoService/";
var ApiError = class extends Error {
  constructor(code, message, details = []) {
    super(message);
    this.code = code;
    this.details = details;
  }
  /** The field paths and descriptions of a BadRequest / PreconditionFailure detail. */
  get explanations() {
    const out = [];
    for (const d of this.details) {
      for (const v of d.debug?.fieldViolations ?? []) out.push(`${v.field}: ${v.description}`);
      for (const v of d.debug?.violations ?? []) out.push(`${v.subject}: ${v.description}`);
    }
    return out.length ? out : [this.message];
  }
};
var bearer = "";
function setToken(token) {
  bearer = token.trim();
}
function headers(contentType) {
  const out = { "Content-Type": contentType, "Connect-Protocol-Version": "1" };
  if (bearer) out["Authorization"] = `Bearer ${bearer}`;
  return out;
}
function toError(body, status) {
  return new ApiError(body?.code ?? "unknown", body?.message ?? `HTTP ${status}`, body?.details ?? []);
}
async function call(method, request, signal) {
  const reply = await fetch(SERVICE + method, {
    method: "POST",
    headers: headers("application/json"),
    body: JSON.stringify(request),
    signal
  });
  const text = await reply.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { code: "unknown", message: text };
  }
  if (!reply.ok) throw toError(body, reply.status);
  return body;
}
async function stream(method, request, onMessage, signal) {
  const payload = new TextEncoder().encode(JSON.stringify(request));
  const body = new Uint8Array(5 + payload.length);
  new DataView(body.buffer).setUint32(1, payload.length);
  body.set(payload, 5);
  const reply = await fetch(SERVICE + method, {
    method: "POST",
    headers: headers("application/connect+json"),
    body,
    signal
  });
  if (!reply.ok || !reply.body) throw toError(await reply.json().catch(() => null), reply.status);
  const reader = reply.body.getReader();
  let buffer = new Uint8Array(0);
  for (; ; ) {
    const { done, value } = await reader.read();
    if (value) {
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
    }
    while (buffer.length >= 5) {
      const view = new DataView(buffer.buffer, buffer.byteOffset);
      const flags = view.getUint8(0), size = view.getUint32(1);
      if (buffer.length < 5 + size) break;
      const message = JSON.parse(new TextDecoder().decode(buffer.subarray(5, 5 + size)));
      buffer = buffer.slice(5 + size);
      if (flags & 2) {
        if (message.error) throw toError(message.error, 200);
        return;
      }
      onMessage(message);
    }
    if (done) throw new ApiError("unavailable", "the stream ended without its end message");
  }
}

// src/game.ts
var workerName = (t) => t.replace("WORKER_TILE_", "");
var jungleName = (t) => t.replace("JUNGLE_TILE_", "").toLowerCase().replace("_", "-");
var workerEnum = (name) => "WORKER_TILE_" + name;
var jungleEnum = (name) => "JUNGLE_TILE_" + name.toUpperCase().replace("-", "_");
var SIDES = {
  "1111": [1, 1, 1, 1],
  "2101": [2, 1, 0, 1],
  "3001": [3, 0, 0, 1],
  "3100": [3, 1, 0, 0]
};
var STEPS = [[0, -1], [1, 0], [0, 1], [-1, 0]];
function workersFacing(tile, rotation, d) {
  return SIDES[workerName(tile)][(d - rotation + 4) % 4];
}
function recordToFile(r) {
  const out = {
    format: "cacao-record/1",
    players: r.players,
    first_player: r.firstPlayer ?? 0,
    worker_piles: r.workerPiles.map((p) => p.tiles.map(workerName)),
    jungle_deck: r.jungleDeck.map(jungleName),
    actions: (r.actions ?? []).map(actionToFile)
  };
  if (r.result) {
    const seats = r.result.seats;
    out.result = {
      gold: seats.map((s) => s.gold ?? 0),
      cacao: seats.map((s) => s.cacao ?? 0),
      winners: r.result.winners ?? []
    };
  }
  return out;
}
function actionToFile(a) {
  const seat = a.seat ?? 0;
  if (a.place) {
    const p = a.place;
    return {
      type: "place",
      seat,
      tile: workerName(p.tile),
      x: p.x ?? 0,
      y: p.y ?? 0,
      rot: p.rotation ?? 0,
      fills: (p.fills ?? []).map((f) => ({ x: f.x ?? 0, y: f.y ?? 0, tile: jungleName(f.tile) }))
    };
  }
  if (a.overbuild) {
    const o = a.overbuild;
    return { type: "overbuild", seat, tile: workerName(o.tile), x: o.x ?? 0, y: o.y ?? 0, rot: o.rotation ?? 0 };
  }
  if (a.discard) return { type: "discard", seat, tile: workerName(a.discard.tile) };
  return { type: "resolve", seat, gold: a.resolve?.gold ?? 0, cacao: a.resolve?.cacao ?? 0 };
}
function recordFromFile(f) {
  return {
    players: f.players,
    firstPlayer: f.first_player,
    workerPiles: (f.worker_piles ?? []).map((p) => ({ tiles: p.map(workerEnum) })),
    jungleDeck: (f.jungle_deck ?? []).map(jungleEnum),
    actions: (f.actions ?? []).map((a) => {
      if (a.type === "place") {
        return { seat: a.seat, place: {
          tile: workerEnum(a.tile),
          x: a.x,
          y: a.y,
          rotation: a.rot,
          fills: (a.fills ?? []).map((x) => ({ x: x.x, y: x.y, tile: jungleEnum(x.tile) }))
        } };
      }
      if (a.type === "overbuild") return { seat: a.seat, overbuild: { tile: workerEnum(a.tile), x: a.x, y: a.y, rotation: a.rot } };
      if (a.type === "discard") return { seat: a.seat, discard: { tile: workerEnum(a.tile) } };
      return { seat: a.seat, resolve: { gold: a.gold, cacao: a.cacao } };
    }),
    result: f.result ? {
      seats: (f.result.gold ?? []).map((gold, seat) => ({ seat, gold, cacao: f.result.cacao?.[seat] })),
      winners: f.result.winners
    } : void 0
  };
}
function observation(p, seat) {
  return {
    ...p,
    view: seat,
    jungleDeck: void 0,
    seats: p.seats.map((s, i) => ({ ...s, pile: void 0, hand: i === seat ? s.hand : void 0 }))
  };
}
function describe(a) {
  if (a.place || a.overbuild) {
    const p = a.place ?? a.overbuild;
    const fills = (a.place?.fills ?? []).map((f) => `${jungleName(f.tile)} to (${f.x ?? 0},${f.y ?? 0})`);
    return `${a.overbuild ? "overbuild " : ""}${workerName(p.tile)} at (${p.x ?? 0},${p.y ?? 0})` + (p.rotation ? ` turned ${p.rotation}` : "") + (fills.length ? `, ${fills.join(", ")}` : "");
  }
  if (a.discard) return `discard ${workerName(a.discard.tile)}`;
  return `take ${a.resolve?.gold ?? 0} gold, keep ${a.resolve?.cacao ?? 0} cacao`;
}
var sameAction = (a, b) => (a.seat ?? 0) === (b.seat ?? 0) && describe(a) === describe(b);
function temples(p) {
  const cells = /* @__PURE__ */ new Map();
  for (const t of p.board) cells.set(`${t.x ?? 0},${t.y ?? 0}`, t);
  const out = [];
  for (const t of p.board) {
    if (t.jungle !== "JUNGLE_TILE_TEMPLE") continue;
    const x = t.x ?? 0, y = t.y ?? 0, workers = new Array(p.players).fill(0);
    STEPS.forEach(([dx, dy], d) => {
      const w = cells.get(`${x + dx},${y + dy}`)?.worker;
      if (w) workers[w.seat ?? 0] += workersFacing(w.tile, w.rotation ?? 0, (d + 2) % 4);
    });
    out.push({ x, y, workers });
  }
  return out;
}

// src/board.ts
var CELL = 64;
var SEAT_COLOURS = ["#c0392b", "#d4a017", "#7d3c98", "#2471a3"];
var SEAT_LIGHT = ["#f5c6c0", "#f8e7a6", "#dcc6e8", "#c4dcf0"];
var SEAT_NAMES = ["red", "yellow", "purple", "blue"];
var JUNGLE_STYLE = {
  "plantation-1": { fill: "#5b9b3c", label: "plantation", icon: "\u25CF" },
  "plantation-2": { fill: "#3f7f2a", label: "plantation", icon: "\u25CF\u25CF" },
  "market-2": { fill: "#c98a3b", label: "market", icon: "2" },
  "market-3": { fill: "#c98a3b", label: "market", icon: "3" },
  "market-4": { fill: "#c98a3b", label: "market", icon: "4" },
  "gold-1": { fill: "#b89a2e", label: "gold mine", icon: "1" },
  "gold-2": { fill: "#b89a2e", label: "gold mine", icon: "2" },
  water: { fill: "#3d8ec9", label: "water", icon: "\u2248" },
  sun: { fill: "#e67e22", label: "sun", icon: "\u2600" },
  temple: { fill: "#8d8d80", label: "temple", icon: "\u2302" }
};
var NS = "http://www.w3.org/2000/svg";
function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== void 0) e.textContent = text;
  parent?.appendChild(e);
  return e;
}
function jungleTile(parent, tile, px, py, size = CELL) {
  const name = jungleName(tile), style = JUNGLE_STYLE[name];
  const g = el("g", { class: `jungle ${name}`, "data-tile": name }, parent);
  el("rect", { x: px + 1, y: py + 1, width: size - 2, height: size - 2, rx: 6, fill: style.fill, stroke: "#2b2b20", "stroke-width": 1 }, g);
  const s = size / CELL;
  el("text", { x: px + size / 2, y: py + size * 0.55, "text-anchor": "middle", "font-size": 22 * s, fill: "#fff", "font-weight": 700 }, g, style.icon);
  el("text", { x: px + size / 2, y: py + size * 0.86, "text-anchor": "middle", "font-size": 10 * s, fill: "#fff" }, g, style.label);
}
function workerTile(parent, tile, seat, rotation, px, py, size = CELL, extra = "") {
  const g = el("g", { class: `worker ${extra}`, "data-tile": workerName(tile) }, parent);
  el("rect", { x: px + 2, y: py + 2, width: size - 4, height: size - 4, rx: 4, fill: SEAT_LIGHT[seat], stroke: SEAT_COLOURS[seat], "stroke-width": 2 }, g);
  const sides = SIDES[workerName(tile)];
  const c = size / 2, r = size * 0.075, inset = size * 0.16;
  for (let k = 0; k < 4; k++) {
    const d = (k + rotation) % 4, n = sides[k];
    for (let i = 0; i < n; i++) {
      const along = (i - (n - 1) / 2) * r * 2.6;
      const [dx, dy] = [[along, -c + inset], [c - inset, along], [along, c - inset], [-c + inset, along]][d];
      el("circle", { cx: px + c + dx, cy: py + c + dy, r, fill: SEAT_COLOURS[seat], stroke: "#222", "stroke-width": 0.8 }, g);
    }
  }
  return g;
}
function drawBoard(svg, view) {
  const p = view.position;
  const cells = /* @__PURE__ */ new Map();
  let minX = 0, maxX = 1, minY = 0, maxY = 1;
  const grow = (x, y) => {
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  };
  for (const t of p.board) {
    cells.set(`${t.x ?? 0},${t.y ?? 0}`, t);
    grow(t.x ?? 0, t.y ?? 0);
  }
  minX -= 1;
  maxX += 1;
  minY -= 1;
  maxY += 1;
  for (const key of view.targets?.keys() ?? []) {
    const [x, y] = key.split(",").map(Number);
    grow(x, y);
  }
  const width = (maxX - minX + 1) * CELL, height = (maxY - minY + 1) * CELL;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `${minX * CELL} ${minY * CELL} ${width} ${height}`);
  svg.style.aspectRatio = `${width} / ${height}`;
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const px = x * CELL, py = y * CELL, key = `${x},${y}`, t = cells.get(key);
      const target = view.targets?.get(key);
      const cell = el("g", { class: "cell", "data-x": x, "data-y": y }, svg);
      el("rect", { x: px, y: py, width: CELL, height: CELL, class: target ? `target ${target}` : "empty" }, cell);
      if (t?.jungle) jungleTile(cell, t.jungle, px, py);
      if (t?.worker) {
        const w = t.worker;
        if (w.covers) el("rect", { x: px + 6, y: py + 6, width: CELL - 4, height: CELL - 4, rx: 4, fill: "#999", opacity: 0.6 }, cell);
        workerTile(cell, w.tile, w.seat ?? 0, w.rotation ?? 0, px, py);
      }
      if (target === "overbuild") el("rect", { x: px + 2, y: py + 2, width: CELL - 4, height: CELL - 4, class: "target-ring" }, cell);
      cell.addEventListener("click", (e) => view.onCell?.(x, y, e));
      cell.addEventListener("mouseenter", () => view.onHover?.(x, y));
    }
  }
  for (const m of view.marked ?? []) {
    el("rect", { x: m.x * CELL + 1, y: m.y * CELL + 1, width: CELL - 2, height: CELL - 2, class: "marked" }, svg);
  }
  for (const temple of temples(p)) {
    const g = el("g", { class: "majority" }, svg);
    const seats = temple.workers.map((n, s) => [n, s]).filter(([n]) => n > 0).sort((a, b) => b[0] - a[0]);
    seats.forEach(([n, s], i) => {
      const cx = temple.x * CELL + 10 + i * 15, cy = temple.y * CELL + 11;
      el("circle", { cx, cy, r: 7, fill: SEAT_COLOURS[s], stroke: "#fff", "stroke-width": 1.2 }, g);
      el("text", { x: cx, y: cy + 3.5, "text-anchor": "middle", "font-size": 10, fill: "#fff", "font-weight": 700 }, g, String(n));
    });
  }
  const ghost = view.ghost;
  if (ghost) {
    const g = workerTile(
      svg,
      ghost.tile,
      ghost.seat,
      ghost.rotation,
      ghost.x * CELL,
      ghost.y * CELL,
      CELL,
      ghost.legal ? "ghost" : "ghost illegal"
    );
    g.style.pointerEvents = "none";
  }
}

// src/main.ts
var $ = (id) => document.getElementById(id);
var num = (v) => v ?? 0;
var state = {
  mode: "setup",
  levels: [],
  game: null,
  replay: null,
  legal: [],
  tile: null,
  // the hand tile chosen for placing
  rotation: 0,
  hover: null,
  choices: null,
  // several actions for one click (which display tile goes where)
  thinking: null,
  analysis: null,
  quick: null,
  // the evaluation bar's search
  evaluation: null,
  evalSeq: 0,
  message: "",
  busy: false
  // a move is on its way: the page takes no other
};
window.cacao = state;
function budget(kind) {
  return kind.startsWith("time:") ? { limits: { time: `${kind.slice(5)}s` } } : { level: kind };
}
var TOKEN_KEY = "cacao-token";
function takeToken() {
  const fromAddress = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromAddress !== null) {
    sessionStorage.setItem(TOKEN_KEY, fromAddress);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}
async function loadLevels() {
  try {
    const info = await call("GetServerInfo", {});
    state.levels = (info.levels ?? []).map((l) => l.name);
  } catch (e) {
    if (e instanceof ApiError && (e.code === "unauthenticated" || e.code === "permission_denied")) {
      say(`${e.code}: this server needs a token: enter it under New game, or open the page as ${location.origin}/#token=YOUR_TOKEN`, true);
    } else {
      say(`cannot reach the service: ${e.message}`, true);
    }
  }
}
async function init() {
  const token = takeToken();
  setToken(token);
  $("token").value = token;
  await loadLevels();
  buildSetup();
  $("new").onclick = () => showSetup();
  $("undo").onclick = () => undo();
  $("analyse").onclick = () => analyse();
  $("save").onclick = () => save();
  $("load").onclick = () => $("load-file").click();
  $("load-file").onchange = (e) => load(e.target.files?.[0]);
  $("rotate").onclick = () => rotate();
  document.addEventListener("keydown", (e) => {
    if (e.key === "r" || e.key === "R") rotate();
    if (e.key === "Escape") {
      state.choices = null;
      render();
    }
    if (state.mode === "replay" && e.key === "ArrowRight") replayStep(1);
    if (state.mode === "replay" && e.key === "ArrowLeft") replayStep(-1);
  });
  $("board").addEventListener("wheel", (e) => {
    if (state.tile) {
      e.preventDefault();
      rotate();
    }
  }, { passive: false });
  $("board").addEventListener("mouseleave", () => {
    state.hover = null;
    render();
  });
  for (const [id, step] of [["r-first", -1e9], ["r-prev", -1], ["r-next", 1], ["r-last", 1e9]]) {
    $(id).onclick = () => replayStep(step);
  }
  $("r-slider").oninput = (e) => replayGo(Number(e.target.value));
  $("r-play").onclick = () => playFromReplay();
  showSetup();
}
function levelOptions(selected) {
  const ai = [...state.levels.map((l) => [l, `AI ${l}`]), ["time:1", "AI thinks 1 s"], ["time:3", "AI thinks 3 s"]];
  return [["human", "human"], ...ai].map(([v, t]) => `<option value="${v}"${v === selected ? " selected" : ""}>${t}</option>`).join("");
}
function buildSetup() {
  const rows = [0, 1, 2, 3].map((s) => `<label class="seat-row" data-seat="${s}">
    <span class="swatch" style="background:${SEAT_COLOURS[s]}"></span> seat ${s} (${SEAT_NAMES[s]})
    <select id="seat-${s}">${levelOptions(s === 0 ? "human" : "casual")}</select></label>`).join("");
  $("setup-seats").innerHTML = rows;
  const players = $("players");
  const sync = () => document.querySelectorAll(".seat-row").forEach((row) => {
    row.style.display = Number(row.dataset.seat) < Number(players.value) ? "" : "none";
  });
  players.onchange = sync;
  sync();
  $("start").onclick = async () => {
    const token = $("token").value.trim();
    if (token !== (sessionStorage.getItem(TOKEN_KEY) ?? "")) {
      sessionStorage.setItem(TOKEN_KEY, token);
      setToken(token);
      if (!state.levels.length) {
        await loadLevels();
        buildSetup();
        return;
      }
    }
    const n = Number(players.value);
    const seats = [...Array(n).keys()].map((s) => $(`seat-${s}`).value);
    const seedText = $("seed").value.trim();
    void newGame(n, seats, seedText ? Number(seedText) : Math.floor(Math.random() * 1e9));
  };
}
function showSetup() {
  stopThinking();
  stopAnalysis();
  state.mode = state.game ? "play" : "setup";
  $("setup").hidden = false;
  render();
}
async function newGame(players, seats, seed) {
  $("setup").hidden = true;
  stopThinking();
  state.legal = [];
  state.busy = true;
  const reply = await call(
    "NewGame",
    { players, seed }
  );
  state.game = { record: reply.record, position: reply.position, hash: reply.positionHash, seats, seed };
  state.mode = "play";
  state.evaluation = null;
  say(`new game: ${players} players, seed ${seed}`);
  await advance();
}
var seatKind = (s) => state.game?.seats[s] ?? "human";
var isHuman = (s) => s !== void 0 && seatKind(s) === "human";
async function advance() {
  const g = state.game;
  state.legal = [];
  state.choices = null;
  const toAct = g.position.toAct;
  if (g.position.phase === "PHASE_OVER") {
    state.busy = false;
    state.evaluation = null;
    render();
    return;
  }
  if (!isHuman(toAct)) {
    render();
    await aiMove(toAct);
    return;
  }
  const reply = await call("ListLegalActions", { record: g.record });
  state.legal = reply.actions ?? [];
  const tiles = handTiles();
  if (!state.tile || !tiles.includes(state.tile)) state.tile = tiles[0] ?? null;
  state.busy = false;
  render();
  if ($("auto-eval").checked) void quickEvaluation();
}
function handTiles() {
  const out = [];
  for (const a of state.legal) {
    const t = a.place?.tile ?? a.overbuild?.tile;
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}
async function apply(action) {
  const g = state.game;
  try {
    const reply = await call(
      "ApplyAction",
      { record: g.record, action, expectedPositionHash: g.hash }
    );
    g.record = reply.record;
    g.position = reply.position;
    g.hash = reply.positionHash;
    state.message = "";
    return true;
  } catch (e) {
    explain(e);
    return false;
  }
}
async function humanMove(action) {
  if (state.busy) return;
  stopAnalysis();
  state.choices = null;
  state.busy = true;
  if (await apply(action)) {
    say(`${SEAT_NAMES[action.seat ?? 0]}: ${describe(action)}`);
    await advance();
  } else {
    state.busy = false;
    render();
  }
}
function stopThinking() {
  state.thinking?.abort();
  state.thinking = null;
}
function stopAnalysis() {
  state.analysis?.abort();
  state.analysis = null;
  state.quick?.abort();
  state.quick = null;
}
async function aiMove(seat) {
  const g = state.game;
  const controller = new AbortController();
  state.thinking = controller;
  state.evalSeq = 0;
  render();
  let last = null;
  for (let attempt = 0; !last && attempt <= 100; attempt++) {
    try {
      await stream("AnalyzePosition", {
        position: observation(g.position, seat),
        ...budget(seatKind(seat)),
        seed: String(g.seed + (g.record.actions?.length ?? 0)),
        maxCandidates: 5,
        reportInterval: "0.2s"
      }, (m) => {
        last = m.evaluation;
        showEvaluation(m.evaluation, seat, num(m.sequence));
      }, controller.signal);
    } catch (e) {
      if (controller.signal.aborted) return;
      if (e instanceof ApiError && e.code === "resource_exhausted" && attempt < 100) {
        say("the service is busy with other searches: asking again shortly");
        await sleep(250 + 50 * attempt);
        if (controller.signal.aborted) return;
        continue;
      }
      state.thinking = null;
      state.busy = false;
      explain(e);
      render();
      return;
    }
  }
  if (state.thinking !== controller) return;
  state.thinking = null;
  if (!last) {
    state.busy = false;
    say("the service gave no answer for the AI seat: start a new game or undo", true);
    render();
    return;
  }
  const action = last.bestAction;
  if (await apply(action)) say(`${SEAT_NAMES[seat]} (AI): ${describe(action)}`);
  await advance();
}
async function evaluate(position, iterations, signal) {
  const reply = await call("SuggestAction", {
    position: observation(position, position.toAct),
    limits: { iterations },
    seed: "1",
    maxCandidates: 5
  }, signal);
  return reply.evaluation;
}
async function quickEvaluation() {
  const g = state.game;
  const hash = g.hash, controller = new AbortController();
  state.quick = controller;
  try {
    const ev = await evaluate(g.position, 1500, controller.signal);
    if (state.game?.hash === hash && !state.analysis) showEvaluation(ev, g.position.toAct, 0);
  } catch (e) {
  }
  if (state.quick === controller) state.quick = null;
}
var sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function analyse() {
  if (state.analysis) {
    stopAnalysis();
    render();
    return;
  }
  const source = currentPosition();
  if (!source || source.phase === "PHASE_OVER") return;
  const seat = source.toAct;
  const controller = new AbortController();
  state.analysis = controller;
  render();
  try {
    await stream("AnalyzePosition", {
      position: observation(source, seat),
      limits: { time: "3s" },
      seed: "1",
      maxCandidates: 6,
      reportInterval: "0.25s"
    }, (m) => showEvaluation(m.evaluation, seat, num(m.sequence)), controller.signal);
  } catch (e) {
    if (!controller.signal.aborted) explain(e);
  }
  if (state.analysis === controller) state.analysis = null;
  render();
}
function currentPosition() {
  if (state.mode === "replay") return replayPosition;
  return state.game?.position ?? null;
}
async function undo() {
  const g = state.game;
  if (!g || state.mode !== "play") return;
  stopThinking();
  stopAnalysis();
  state.busy = true;
  const actions = g.record.actions ?? [];
  let i = actions.length - 1;
  while (i >= 0 && !isHuman(actions[i].seat ?? 0)) i--;
  if (i < 0) {
    say("nothing to undo: no move of a human seat yet");
    return advance();
  }
  const record = { ...g.record, actions: actions.slice(0, i), result: void 0 };
  const reply = await call("ValidateRecord", { record });
  Object.assign(g, { record, position: reply.position, hash: reply.positionHash });
  say(`undone: ${describe(actions[i])}`);
  await advance();
}
function rotate() {
  if (!state.tile) return;
  const rots = rotationsAt(state.hover);
  if (rots.length) {
    const current = ghostRotation();
    state.rotation = rots[(rots.indexOf(current) + 1) % rots.length];
  } else {
    state.rotation = (state.rotation + 1) % 4;
  }
  render();
}
function actionsAt(cell) {
  if (!cell || !state.tile) return [];
  return state.legal.filter((a) => {
    const p = a.place ?? a.overbuild;
    return p && p.tile === state.tile && num(p.x) === cell.x && num(p.y) === cell.y;
  });
}
function rotationsAt(cell) {
  const out = actionsAt(cell).map((a) => num((a.place ?? a.overbuild).rotation));
  return [...new Set(out)].sort();
}
function ghostRotation() {
  const rots = rotationsAt(state.hover);
  if (!rots.length || rots.includes(state.rotation)) return state.rotation;
  return rots.find((r) => r > state.rotation) ?? rots[0];
}
function onCell(x, y) {
  const g = state.game;
  if (state.mode !== "play" || !g || !isHuman(g.position.toAct) || state.thinking) return;
  if (g.position.phase !== "PHASE_TURN" || !state.tile) {
    say("choose one of the offered results on the right", true);
    return;
  }
  const rotation = ghostRotation();
  const options = actionsAt({ x, y }).filter((a) => num((a.place ?? a.overbuild).rotation) === rotation);
  if (options.length === 1) {
    void humanMove(options[0]);
    return;
  }
  if (options.length > 1) {
    state.choices = options;
    render();
    return;
  }
  void humanMove({ seat: g.position.toAct, place: { tile: state.tile, x, y, rotation } });
}
function onHover(x, y) {
  if (state.hover?.x === x && state.hover?.y === y) return;
  state.hover = { x, y };
  renderBoard();
}
function save() {
  const record = state.mode === "replay" ? state.replay?.record : state.game?.record;
  if (!record) return;
  const text = JSON.stringify(recordToFile(record), null, 1);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  link.download = `cacao-${(/* @__PURE__ */ new Date()).toISOString().slice(0, 19).replace(/[:T]/g, "-")}.json`;
  link.click();
  say(`saved ${record.actions?.length ?? 0} actions as ${link.download}`);
}
async function load(file) {
  if (!file) return;
  const text = await file.text();
  $("load-file").value = "";
  await openRecord(text);
}
async function openRecord(text) {
  try {
    const check = await call(
      "ValidateRecord",
      { recordJson: text }
    );
    if (!check.valid) {
      say(`the record is not valid: ${check.errorIndex === -1 ? "header" : `action ${check.errorIndex}`}: ${check.errorMessage}`, true);
      return;
    }
    stopThinking();
    stopAnalysis();
    const record = recordFromFile(JSON.parse(text));
    state.replay = { record, index: 0, evals: /* @__PURE__ */ new Map() };
    state.mode = "replay";
    $("setup").hidden = true;
    say(`replaying ${record.actions?.length ?? 0} actions; arrow keys step`);
    await replayGo(0);
  } catch (e) {
    explain(e);
  }
}
window.cacaoOpenRecord = openRecord;
var replayPosition = null;
function replayStep(step) {
  const r = state.replay;
  if (!r) return;
  void replayGo(Math.max(0, Math.min(r.record.actions?.length ?? 0, r.index + step)));
}
async function replayGo(index) {
  const r = state.replay;
  r.index = index;
  stopAnalysis();
  const record = { ...r.record, actions: (r.record.actions ?? []).slice(0, index), result: void 0 };
  const reply = await call("ValidateRecord", { record });
  if (r.index !== index) return;
  replayPosition = reply.position;
  state.evaluation = r.evals.get(index) ?? null;
  render();
  if (!state.evaluation && reply.position.phase !== "PHASE_OVER") {
    try {
      const ev = await evaluate(reply.position, 2e3);
      r.evals.set(index, ev);
      if (r.index === index) showEvaluation(ev, reply.position.toAct, 0);
    } catch (e) {
      explain(e);
    }
  }
}
function playFromReplay() {
  const r = state.replay;
  if (!r) return;
  const record = { ...r.record, actions: (r.record.actions ?? []).slice(0, r.index), result: void 0 };
  const seats = [...Array(record.players).keys()].map((s) => $(`seat-${s}`).value);
  state.game = { record, position: replayPosition, hash: "", seats, seed: 1 };
  call("ValidateRecord", { record }).then((v) => {
    state.game.hash = v.positionHash;
    state.mode = "play";
    say(`playing on from action ${r.index}; seats: ${seats.join(", ")}`);
    return advance();
  }).catch(explain);
}
function say(text, error = false) {
  state.message = text;
  const box = $("message");
  box.textContent = text;
  box.className = error ? "error" : "";
  if (!error) {
    const li = document.createElement("li");
    li.textContent = text;
    $("log").prepend(li);
  }
}
function explain(e) {
  if (e instanceof ApiError) {
    const box = $("message");
    box.className = "error";
    box.innerHTML = "";
    const head = document.createElement("b");
    head.textContent = `${e.code}: `;
    box.append(head, e.explanations.join("; "));
    state.message = e.explanations.join("; ");
  } else {
    say(String(e?.message ?? e), true);
  }
}
function showEvaluation(ev, seat, sequence) {
  state.evaluation = ev;
  state.evalSeq = sequence;
  renderEvaluation(seat);
}
function render() {
  document.body.dataset.mode = state.mode;
  $("replay-bar").hidden = state.mode !== "replay";
  renderBoard();
  renderSeats();
  renderChoices();
  renderEvaluation(currentPosition()?.toAct);
  $("analyse").textContent = state.analysis ? "Stop analysis" : "Analyse";
  const g = state.game;
  $("thinking").hidden = !state.thinking;
  const r = state.replay;
  if (state.mode === "replay" && r) {
    const n = r.record.actions?.length ?? 0;
    const slider = $("r-slider");
    slider.max = String(n);
    slider.value = String(r.index);
    const last = r.index > 0 ? r.record.actions[r.index - 1] : null;
    $("r-label").textContent = `${r.index} / ${n}` + (last ? ` \u2014 ${SEAT_NAMES[last.seat ?? 0]}: ${describe(last)}` : "");
  }
  const p = currentPosition();
  let status = "";
  if (p) {
    if (p.phase === "PHASE_OVER") status = "Game over";
    else status = `Turn ${num(p.turn) + 1}: ${SEAT_NAMES[p.toAct ?? 0]} to ${p.phase === "PHASE_RESOLVE" ? "choose a result" : "place a tile"}`;
    if (state.mode === "play" && g && !isHuman(p.toAct) && p.phase !== "PHASE_OVER") status += ` (AI ${seatKind(p.toAct)})`;
  }
  $("status").textContent = status;
  $("status").style.borderColor = p && p.phase !== "PHASE_OVER" ? SEAT_COLOURS[p.toAct ?? 0] : "#555";
  renderResult();
}
function renderBoard() {
  const p = currentPosition();
  const svg = $("board");
  if (!p) {
    svg.replaceChildren();
    return;
  }
  const playing = state.mode === "play" && state.game && isHuman(p.toAct) && !state.thinking;
  const targets = /* @__PURE__ */ new Map();
  if (playing && state.tile) {
    for (const a of state.legal) {
      const q = a.place ?? a.overbuild;
      if (q?.tile === state.tile) targets.set(`${num(q.x)},${num(q.y)}`, a.place ? "place" : "overbuild");
    }
  }
  let ghost = null;
  if (playing && state.tile && state.hover && p.phase === "PHASE_TURN") {
    const legal = targets.has(`${state.hover.x},${state.hover.y}`);
    ghost = { tile: state.tile, ...state.hover, rotation: ghostRotation(), seat: p.toAct ?? 0, legal };
  }
  const actions = (state.mode === "replay" ? state.replay?.record.actions?.slice(0, state.replay.index) : state.game?.record.actions) ?? [];
  const lastPlace = [...actions].reverse().find((a) => a.place || a.overbuild);
  const marked = lastPlace ? [
    { x: num((lastPlace.place ?? lastPlace.overbuild).x), y: num((lastPlace.place ?? lastPlace.overbuild).y) },
    ...(lastPlace.place?.fills ?? []).map((f) => ({ x: num(f.x), y: num(f.y) }))
  ] : [];
  drawBoard(svg, { position: p, targets, ghost, marked, onCell, onHover });
}
function miniTile(tile, seat, rotation = 0, cls = "") {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
  svg.setAttribute("class", `mini ${cls}`);
  workerTile(svg, tile, seat, rotation, 0, 0);
  return svg;
}
function renderSeats() {
  const p = currentPosition();
  const box = $("seats");
  box.replaceChildren();
  if (!p) return;
  p.seats.forEach((s, i) => {
    const div = document.createElement("div");
    div.className = "seat" + (p.toAct === i && p.phase !== "PHASE_OVER" ? " to-act" : "");
    div.dataset.seat = String(i);
    div.style.borderColor = SEAT_COLOURS[i];
    const who = state.mode === "play" ? isHuman(i) ? "human" : `AI ${seatKind(i).replace("time:", "")}` : "";
    div.innerHTML = `<div class="seat-head"><span class="swatch" style="background:${SEAT_COLOURS[i]}"></span>
      <b>${SEAT_NAMES[i]}</b> <span class="who">${who}</span></div>
      <div class="stats"><span title="gold"><i class="tok gold"></i><b class="gold">${num(s.gold)}</b> gold</span>
      <span title="cacao (at most 5)"><i class="tok cacao"></i><b>${num(s.cacao)}</b> cacao</span>
      <span title="sun tokens (at most 3)"><i class="tok sun"></i><b>${num(s.sun)}</b> sun</span>
      <span title="water carrier: space 0..8 (-10 .. +16 gold at the end)"><i class="tok water"></i>water <b>${num(s.water)}</b></span>
      <span title="tiles left in the draw pile">pile ${num(s.pileCount)}</span></div>`;
    const hand = document.createElement("div");
    hand.className = "hand";
    const shown = state.mode === "replay" || isHuman(i) || p.phase === "PHASE_OVER";
    const tiles = s.hand ?? [];
    if (shown) {
      const choosable = state.mode === "play" && p.toAct === i && isHuman(i) && p.phase === "PHASE_TURN";
      const usable = handTiles();
      const chosen = choosable && state.tile ? tiles.indexOf(state.tile) : -1;
      tiles.forEach((t, k) => {
        const mini = miniTile(t, i, 0, k === chosen ? "chosen" : "");
        mini.dataset.tile = workerName(t);
        if (choosable && usable.includes(t)) {
          mini.classList.add("choosable");
          mini.addEventListener("click", () => {
            state.tile = t;
            state.rotation = 0;
            render();
          });
        }
        hand.appendChild(mini);
      });
    } else {
      hand.textContent = `${num(s.handCount)} tiles in hand`;
    }
    div.appendChild(hand);
    box.appendChild(div);
  });
  const display = $("display");
  display.replaceChildren();
  for (const t of p.display ?? []) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `0 0 ${CELL} ${CELL}`);
    svg.setAttribute("class", "mini");
    jungleTile(svg, t, 0, 0);
    display.appendChild(svg);
  }
  $("deck").textContent = `${num(p.jungleDeckCount)} in the jungle deck`;
  const list = $("temples");
  list.replaceChildren();
  for (const t of temples(p)) {
    const li = document.createElement("li");
    const most = Math.max(...t.workers);
    li.innerHTML = `temple (${t.x},${t.y}): ` + (most === 0 ? "nobody yet" : t.workers.map((n, s) => n ? `<span style="color:${SEAT_COLOURS[s]}" class="${n === most ? "lead" : ""}">${SEAT_NAMES[s]} ${n}</span>` : "").filter(Boolean).join(", "));
    list.appendChild(li);
  }
}
function renderChoices() {
  const box = $("choices");
  box.replaceChildren();
  const p = state.game?.position;
  if (state.mode !== "play" || !p || !isHuman(p.toAct) || state.thinking) return;
  let offered = state.choices ?? [];
  let title = "Which display tile goes where?";
  if (!state.choices) {
    offered = state.legal.filter((a) => a.resolve || a.discard);
    title = p.phase === "PHASE_RESOLVE" ? `${SEAT_NAMES[p.toAct]}: choose your result` : "No placement: discard a tile";
    const overbuilds = state.legal.filter((a) => a.overbuild);
    if (overbuilds.length && state.legal.some((a) => a.place)) {
      const hint = document.createElement("p");
      hint.textContent = "Overbuild (1 sun): click one of your own tiles (ringed).";
      box.appendChild(hint);
    }
  }
  if (!offered.length) return;
  const h = document.createElement("h3");
  h.textContent = title;
  box.appendChild(h);
  for (const a of offered) {
    const b = document.createElement("button");
    b.className = "choice";
    b.textContent = describe(a);
    b.onclick = () => void humanMove(a);
    box.appendChild(b);
  }
  if (state.choices) {
    const c = document.createElement("button");
    c.textContent = "cancel";
    c.onclick = () => {
      state.choices = null;
      render();
    };
    box.appendChild(c);
  }
}
function renderEvaluation(seat) {
  const ev = state.evaluation;
  const bar = $("evalbar");
  const details = $("evaluation");
  bar.replaceChildren();
  details.replaceChildren();
  if (!ev) {
    details.textContent = currentPosition()?.phase === "PHASE_OVER" ? "the game is over" : "no evaluation yet: press Analyse";
    return;
  }
  for (const s of ev.seats ?? []) {
    const part = document.createElement("div");
    const p = s.winProbability ?? 0;
    part.style.flexGrow = String(Math.max(p, 1e-3));
    part.style.background = SEAT_COLOURS[s.seat ?? 0];
    part.className = "evalpart";
    part.textContent = p >= 0.08 ? `${Math.round(p * 100)}%` : "";
    part.title = `${SEAT_NAMES[s.seat ?? 0]}: win ${(p * 100).toFixed(1)}%, expected gold ${(s.expectedGold ?? 0).toFixed(1)}`;
    bar.appendChild(part);
  }
  const head = document.createElement("div");
  head.className = "evalhead";
  head.dataset.sequence = String(state.evalSeq);
  head.dataset.iterations = String(ev.iterations ?? 0);
  head.textContent = `${ev.final ? "final" : "searching\u2026"} ${Number(ev.iterations ?? 0).toLocaleString()} iterations` + (seat !== void 0 ? `, for ${SEAT_NAMES[seat]}` : "");
  details.appendChild(head);
  const table = document.createElement("table");
  table.innerHTML = "<tr><th>seat</th><th>win</th><th>gold</th></tr>" + (ev.seats ?? []).map((s) => `<tr><td style="color:${SEAT_COLOURS[s.seat ?? 0]}">${SEAT_NAMES[s.seat ?? 0]}</td>
     <td>${((s.winProbability ?? 0) * 100).toFixed(0)}%</td><td>${(s.expectedGold ?? 0).toFixed(1)}</td></tr>`).join("");
  details.appendChild(table);
  if (state.mode === "play" && seat !== void 0 && !isHuman(seat) && state.game?.seats.includes("human")) {
    const note = document.createElement("p");
    note.className = "small";
    note.textContent = "The AI's candidate moves stay hidden: they would show its hand.";
    details.appendChild(note);
    return;
  }
  const r = state.replay;
  const next = state.mode === "replay" && r ? r.record.actions?.[r.index] : void 0;
  if (next) {
    const played = document.createElement("p");
    const best = ev.bestAction && sameAction(ev.bestAction, next);
    played.innerHTML = `<b>played next:</b> ${describe(next)}${best ? " \u2014 the AI's choice too" : ""}`;
    details.appendChild(played);
  }
  const ol = document.createElement("ol");
  ol.className = "candidates";
  for (const c of ev.candidates ?? []) {
    const li = document.createElement("li");
    li.textContent = `${describe(c.action)} \u2014 ${((c.winProbability ?? 0) * 100).toFixed(0)}% win, ${Number(c.visits ?? 0).toLocaleString()} visits`;
    const g = state.game;
    if (state.mode === "play" && g && isHuman(g.position.toAct) && state.legal.some((a) => sameAction(a, c.action))) {
      const b = document.createElement("button");
      b.textContent = "play";
      b.onclick = () => void humanMove(c.action);
      li.appendChild(b);
    }
    ol.appendChild(li);
  }
  details.appendChild(ol);
}
function renderResult() {
  const box = $("result");
  const p = currentPosition();
  const record = state.mode === "replay" ? state.replay?.record : state.game?.record;
  const result = record?.result;
  box.hidden = !(p?.phase === "PHASE_OVER" && result);
  if (box.hidden || !result) return;
  const winners = (result.winners ?? []).map((s) => SEAT_NAMES[s]).join(" and ");
  box.innerHTML = `<h2>${winners} win${(result.winners ?? []).length > 1 ? "" : "s"}</h2>` + result.seats.map((s) => `<span style="color:${SEAT_COLOURS[s.seat ?? 0]}">${SEAT_NAMES[s.seat ?? 0]}: ${s.gold ?? 0} gold, ${s.cacao ?? 0} cacao</span>`).join("<br>");
}
void init();
