// Retries as an interceptor: a call refused before it started is sent again,
// after a pause that doubles each time (with jitter), a bounded number of times.
import { Code, ConnectError } from "@connectrpc/connect";
import type { Interceptor, StreamRequest, StreamResponse } from "@connectrpc/connect";
import { METHODS, RETRY_ALWAYS, SEARCH_METHODS } from "./gen/cacao/v1/cacao_methods.js";

export { SEARCH_METHODS };

/** When and how often to send a refused call again. */
export interface RetryOptions {
  /** Sends of one call at most, the first included (default 8; 1: never retry). */
  maxAttempts?: number;
  /** Pause before the first retry, in ms (default 250). */
  initialDelayMs?: number;
  /** Longest pause between two sends, in ms (default 4000). */
  maxDelayMs?: number;
  /** Growth of the pause from one retry to the next (default 2). */
  multiplier?: number;
  /** Share of each pause drawn at random, 0..1 (default 0.5): with 0.5 a pause of
   *  1000 ms becomes 500..1000 ms, so that many clients refused at once spread out. */
  jitter?: number;
  /** Codes that make any method retry (default: UNAVAILABLE, which the service
   *  answers before doing anything: too many connections, shutting down). */
  codes?: Code[];
  /** Codes that make a search retry (default: the method's own retry codes in the
   *  service's method table, RESOURCE_EXHAUSTED for a search: the server runs its
   *  most searches at once and refuses one more without queueing it). */
  searchCodes?: Code[];
  /** Methods that are searches (default: the method table's: SuggestAction,
   *  AnalyzePosition, Analyze, ReviewGame). */
  searchMethods?: readonly string[];
  /** Told before each pause, e.g. to say "the service is busy". */
  onRetry?: (retry: RetryEvent) => void;
  /** For tests: the random source (default Math.random) and the pause. */
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** One retry about to happen. */
export interface RetryEvent {
  /** The method's name, e.g. "AnalyzePosition". */
  method: string;
  /** The send that failed: 1 for the first. */
  attempt: number;
  /** The pause before the next send, in ms. */
  delayMs: number;
  /** Why the last send failed. */
  error: ConnectError;
}

/** The pause before retry number `retry` (1, 2, ...): exponential, capped, with jitter. */
export function retryDelay(retry: number, options: RetryOptions = {}, random = Math.random): number {
  const initial = options.initialDelayMs ?? 250, cap = options.maxDelayMs ?? 4000;
  const multiplier = options.multiplier ?? 2, jitter = Math.min(1, Math.max(0, options.jitter ?? 0.5));
  const full = Math.min(cap, initial * multiplier ** (retry - 1));
  return Math.round(full * (1 - jitter * random()));
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) { reject(cancelled(signal)); return; }
    const done = () => { signal.removeEventListener("abort", abort); resolve(); };
    const timer = setTimeout(done, ms);
    const abort = () => { clearTimeout(timer); reject(cancelled(signal)); };
    signal.addEventListener("abort", abort, { once: true });
  });
}

function cancelled(signal: AbortSignal): ConnectError {
  return signal.reason instanceof ConnectError ? signal.reason
    : new ConnectError("the call was cancelled while waiting to be sent again", Code.Canceled);
}

/** An interceptor that sends a call again when it is refused with a retryable code.
 *
 *  A unary call is sent again whole. A server stream is sent again only when
 *  it failed before its first message arrived, so the caller never sees a
 *  message twice; once a message has arrived, an error reaches the caller.
 *  Streams of requests (Analyze) are never sent again: their messages cannot
 *  be read twice. The call's signal (cancellation, deadline) ends the waiting. */
export function retryInterceptor(options: RetryOptions = {}): Interceptor {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 8);
  const codes = new Set(options.codes ?? RETRY_ALWAYS);
  const searches = new Set(options.searchMethods ?? SEARCH_METHODS);
  const random = options.random ?? Math.random, sleep = options.sleep ?? abortableSleep;
  const searchCodes = (method: string): readonly Code[] => options.searchCodes ?? METHODS[method]?.retryCodes ?? [];

  const retryable = (method: string, error: unknown): error is ConnectError =>
    error instanceof ConnectError &&
    (codes.has(error.code) || (searches.has(method) && searchCodes(method).includes(error.code)));

  return (next) => async (req) => {
    const method = req.method.name;
    if (req.method.methodKind === "client_streaming" || req.method.methodKind === "bidi_streaming") {
      return next(req);
    }
    // a server stream's one request message, read once and sent with every attempt
    const streamed = req.stream ? await firstMessage(req) : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!req.stream) return await next(req);
        const res = await next({ ...req, message: once(streamed) } as StreamRequest);
        return await withFirstMessage(res as StreamResponse);
      } catch (error) {
        const e = ConnectError.from(error);
        if (attempt >= maxAttempts || req.signal.aborted || !retryable(method, e)) throw e;
        const delayMs = retryDelay(attempt, options, random);
        options.onRetry?.({ method, attempt, delayMs, error: e });
        await sleep(delayMs, req.signal);
      }
    }
  };
}

async function firstMessage(req: StreamRequest): Promise<unknown> {
  for await (const message of req.message) return message;
  throw new ConnectError("a server stream needs its request message", Code.InvalidArgument);
}

async function* once<T>(message: T): AsyncIterable<T> {
  yield message;
}

/** Waits for a stream's first message (or its end, or its error) and gives back
 *  a response that yields it and then the rest, so an early error can be retried. */
async function withFirstMessage(res: StreamResponse): Promise<StreamResponse> {
  const it = res.message[Symbol.asyncIterator]();
  const first = await it.next(); // throws the stream's error, if it comes first
  async function* rest() {
    try {
      if (first.done) return;
      yield first.value;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    } finally {
      await it.return?.(); // a caller that stops reading early closes the stream
    }
  }
  return { ...res, message: rest() };
}
