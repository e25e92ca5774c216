// createCacaoClient: the cacao.v1 service over the Connect protocol (connect-web's
// fetch transport), with retries and an optional bearer token as interceptors.
import { createClient } from "@connectrpc/connect";
import type { Client, Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { CacaoService } from "./gen/cacao/v1/cacao_pb.js";
import { retryInterceptor } from "./retry.js";
import type { RetryOptions } from "./retry.js";

/** A client of every method of cacao.v1.CacaoService. */
export type CacaoClient = Client<typeof CacaoService>;

/** A bearer token, or a function asked for it at every send ("" or undefined: none). */
export type TokenSource = string | (() => string | null | undefined);

export interface CacaoClientOptions {
  /** Sent as `Authorization: Bearer TOKEN` (a server started with --auth-tokens). */
  token?: TokenSource;
  /** When to send a refused call again (see RetryOptions); false: never. */
  retry?: RetryOptions | false;
  /** The binary protobuf encoding instead of proto3 JSON (default false). */
  binary?: boolean;
  /** A deadline for every call that gives none, in ms (default: none). */
  timeoutMs?: number;
  /** Connect GET requests for the side-effect-free methods (GetServerInfo,
   *  ListLegalActions, ValidateRecord, GetPuzzle, CheckPuzzle), which caches and CDNs may keep
   *  (default false: every call is a POST). */
  httpGet?: boolean;
  /** More interceptors, run inside the retries and the token (each send passes them). */
  interceptors?: Interceptor[];
  /** The fetch function to use (default: globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
}

/** An interceptor that sends `Authorization: Bearer TOKEN` when there is a token. */
export function bearerInterceptor(token: TokenSource): Interceptor {
  return (next) => (req) => {
    const value = (typeof token === "function" ? token() : token)?.trim();
    if (value) req.header.set("Authorization", `Bearer ${value}`);
    return next(req);
  };
}

/** The interceptors createCacaoClient installs, outermost first: retries, the
 *  token, then the caller's own. */
export function cacaoInterceptors(options: CacaoClientOptions = {}): Interceptor[] {
  const out: Interceptor[] = [];
  if (options.retry !== false) out.push(retryInterceptor(options.retry ?? {}));
  if (options.token !== undefined) out.push(bearerInterceptor(options.token));
  return out.concat(options.interceptors ?? []);
}

/** The Connect transport createCacaoClient uses, for createClient or other services. */
export function createCacaoTransport(baseUrl: string, options: CacaoClientOptions = {}): Transport {
  return createConnectTransport({
    baseUrl,
    useBinaryFormat: options.binary ?? false,
    useHttpGet: options.httpGet ?? false,
    defaultTimeoutMs: options.timeoutMs,
    interceptors: cacaoInterceptors(options),
    fetch: options.fetch,
  });
}

/** A client of the service at `baseUrl` (e.g. "http://localhost:8080", or a page's
 *  `location.origin`): `await client.newGame({ players: 2 })`. */
export function createCacaoClient(baseUrl: string, options: CacaoClientOptions = {}): CacaoClient {
  return createClient(CacaoService, createCacaoTransport(baseUrl, options));
}
