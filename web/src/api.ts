// A small Connect client for cacao.v1.CacaoService: proto3 JSON over fetch.
// Unary calls POST application/json; AnalyzePosition streams
// application/connect+json envelopes (1 flag byte, 4-byte big-endian length).

const SERVICE = "/cacao.v1.CacaoService/";

// The proto3 JSON forms of the messages the page uses (fields with default values are omitted).
export type WorkerTile = string; // "WORKER_TILE_2101"
export type JungleTile = string; // "JUNGLE_TILE_MARKET_3"

export interface Fill { x?: number; y?: number; tile: JungleTile }
export interface Place { tile: WorkerTile; x?: number; y?: number; rotation?: number; fills?: Fill[] }
export interface Action {
  seat?: number;
  place?: Place;
  overbuild?: { tile: WorkerTile; x?: number; y?: number; rotation?: number };
  discard?: { tile: WorkerTile };
  resolve?: { gold?: number; cacao?: number };
}
export interface BoardTile {
  x?: number; y?: number; jungle?: JungleTile;
  worker?: { tile: WorkerTile; seat?: number; rotation?: number; covers?: { tile: WorkerTile; rotation?: number } };
}
export interface Seat {
  gold?: number; cacao?: number; sun?: number; water?: number; hand?: WorkerTile[]; handCount?: number;
  pile?: WorkerTile[]; pileCount?: number; discarded?: WorkerTile[];
}
export interface Position {
  players: number; firstPlayer?: number; turn?: number; mover?: number; phase: string; toAct?: number;
  board: BoardTile[]; display?: JungleTile[]; jungleDeck?: JungleTile[]; jungleDeckCount?: number;
  seats: Seat[]; pending?: { seat?: number; results?: { gold?: number; cacao?: number }[] }[]; view?: number;
}
export interface GameResult { seats: { seat?: number; gold?: number; cacao?: number }[]; winners?: number[] }
export interface GameRecord {
  players: number; firstPlayer?: number; workerPiles: { tiles: WorkerTile[] }[];
  jungleDeck: JungleTile[]; actions?: Action[]; result?: GameResult;
}
export interface Candidate { action: Action; visits?: string; winProbability?: number; scoreLead?: number }
export interface Evaluation {
  bestAction?: Action; seats?: { seat?: number; winProbability?: number; expectedGold?: number; scoreLead?: number }[];
  candidates?: Candidate[]; principalVariation?: Action[]; iterations?: string; final?: boolean;
  elapsed?: string; iterationsPerSecond?: number; stoppedBy?: string;
}
export type Source = { position: Position } | { record: GameRecord };

/** A Connect error: its code (invalid_argument, ...), message and decoded details. */
export class ApiError extends Error {
  constructor(public code: string, message: string, public details: { type: string; debug?: any }[] = []) {
    super(message);
  }
  /** The field paths and descriptions of a BadRequest / PreconditionFailure detail. */
  get explanations(): string[] {
    const out: string[] = [];
    for (const d of this.details) {
      for (const v of d.debug?.fieldViolations ?? []) out.push(`${v.field}: ${v.description}`);
      for (const v of d.debug?.violations ?? []) out.push(`${v.subject}: ${v.description}`);
    }
    return out.length ? out : [this.message];
  }
}

let bearer = "";

/** The token sent with every call as `Authorization: Bearer` ("": none), for a
 *  server started with --auth-tokens. */
export function setToken(token: string): void {
  bearer = token.trim();
}

function headers(contentType: string): Record<string, string> {
  const out: Record<string, string> = { "Content-Type": contentType, "Connect-Protocol-Version": "1" };
  if (bearer) out["Authorization"] = `Bearer ${bearer}`;
  return out;
}

function toError(body: any, status: number): ApiError {
  return new ApiError(body?.code ?? "unknown", body?.message ?? `HTTP ${status}`, body?.details ?? []);
}

/** One unary call; rejects with an ApiError. */
export async function call<T>(method: string, request: object, signal?: AbortSignal): Promise<T> {
  const reply = await fetch(SERVICE + method, {
    method: "POST", headers: headers("application/json"), body: JSON.stringify(request), signal,
  });
  const text = await reply.text();
  let body: any = null;
  try { body = text ? JSON.parse(text) : {}; } catch { body = { code: "unknown", message: text }; }
  if (!reply.ok) throw toError(body, reply.status);
  return body as T;
}

/** A server-streaming call: calls onMessage for each message; resolves at the end of the stream. */
export async function stream<T>(method: string, request: object, onMessage: (m: T) => void,
                                signal?: AbortSignal): Promise<void> {
  const payload = new TextEncoder().encode(JSON.stringify(request));
  const body = new Uint8Array(5 + payload.length);
  new DataView(body.buffer).setUint32(1, payload.length);
  body.set(payload, 5);
  const reply = await fetch(SERVICE + method, {
    method: "POST", headers: headers("application/connect+json"), body, signal,
  });
  if (!reply.ok || !reply.body) throw toError(await reply.json().catch(() => null), reply.status);
  const reader = reply.body.getReader();
  let buffer = new Uint8Array(0);
  for (;;) {
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
      if (flags & 0x02) {
        if (message.error) throw toError(message.error, 200);
        return;
      }
      onMessage(message as T);
    }
    if (done) throw new ApiError("unavailable", "the stream ended without its end message");
  }
}
