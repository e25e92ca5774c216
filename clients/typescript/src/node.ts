// createCacaoNodeClient: the cacao.v1 service from Node.js, over the official
// connect-node transport (HTTP/1.1, or HTTP/2 for the bidirectional Analyze),
// with the same retries and token as the browser client.
//
//   import { createCacaoNodeClient } from "@cacaoai/client/node";
//   const cacao = createCacaoNodeClient("http://localhost:8080", { httpVersion: "2" });
import { createClient } from "@connectrpc/connect";
import type { Transport } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import type * as http from "node:http";
import type * as http2 from "node:http2";
import type * as https from "node:https";
import { cacaoInterceptors } from "./client.js";
import type { CacaoClient, CacaoClientOptions } from "./client.js";
import { CacaoService } from "./gen/cacao/v1/cacao_pb.js";

export interface CacaoNodeClientOptions extends Omit<CacaoClientOptions, "fetch"> {
  /** "1.1" (default), or "2": HTTP/2, h2c on a plaintext port, which the
   *  bidirectional Analyze needs to send `stop` while the reports come. */
  httpVersion?: "1.1" | "2";
  /** Node's own connection options, e.g. `{ ca }` for a server whose
   *  certificate a private CA signed, or a client certificate and key. */
  nodeOptions?: https.RequestOptions | http.RequestOptions | http2.SecureClientSessionOptions;
}

/** The Connect transport createCacaoNodeClient uses, for createClient or other services. */
export function createCacaoNodeTransport(baseUrl: string, options: CacaoNodeClientOptions = {}): Transport {
  const common = {
    baseUrl,
    useBinaryFormat: options.binary ?? false,
    useHttpGet: options.httpGet ?? false,
    defaultTimeoutMs: options.timeoutMs,
    interceptors: cacaoInterceptors(options),
  };
  if (options.httpVersion === "2") {
    return createConnectTransport({
      ...common, httpVersion: "2", nodeOptions: options.nodeOptions as http2.SecureClientSessionOptions,
    });
  }
  return createConnectTransport({
    ...common, httpVersion: "1.1", nodeOptions: options.nodeOptions as https.RequestOptions,
  });
}

/** A client of the service at `baseUrl` (e.g. "http://localhost:8080") from Node.js. */
export function createCacaoNodeClient(baseUrl: string, options: CacaoNodeClientOptions = {}): CacaoClient {
  return createClient(CacaoService, createCacaoNodeTransport(baseUrl, options));
}
