// The page's client of the service: @cacaoai/client on this page's origin, with the
// token the player gave and the client's retries (a busy or briefly unavailable
// service is asked again, with growing pauses, a bounded number of times).
import { createCacaoClient } from "@cacaoai/client";
import type { GameRecord, RetryEvent } from "@cacaoai/client";

let bearer = "";
let onRetry: (retry: RetryEvent) => void = () => {};

/** The token sent with every call as `Authorization: Bearer` ("": none), for a
 *  server started with --auth-tokens. */
export function setToken(token: string): void {
  bearer = token.trim();
}

/** Told when a call is refused and about to be sent again. */
export function whenRetrying(listener: (retry: RetryEvent) => void): void {
  onRetry = listener;
}

export const client = createCacaoClient(location.origin, {
  token: () => bearer,
  retry: { maxAttempts: 10, onRetry: (r) => onRetry(r) },
});

/** A record as the source of a request (the service replays it). */
export const fromRecord = (record: GameRecord) => ({ case: "record" as const, value: record });
