// What the tests against a real cacao-server share: starting one (CACAO_SERVER
// names the program), a free port, serving a page's files from another origin,
// and headless Chromium (Debian's /usr/bin/chromium through playwright-core,
// which downloads no browser).
//
// A program the tests need that is missing skips them, or fails them under
// CI=true (as the Python tests do: docs/development.md).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { Server } from "node:http";
import { createServer as createNetServer } from "node:net";
import { extname, join } from "node:path";

export const program = process.env.CACAO_SERVER;
export const chromiumPath = process.env.CACAO_CHROMIUM ?? "/usr/bin/chromium";
export const CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync"];

/** false when the test may run, else why it is skipped; throws under CI=true
 *  (CI installs everything the tests need, so a missing program is an error). */
export function requirement(what: { server?: boolean; chromium?: boolean }): false | string {
  const missing = [
    what.server && !program ? "CACAO_SERVER is not set (the path of cacao-server)" : "",
    what.chromium && !existsSync(chromiumPath) ? `${chromiumPath} is not installed (.ci/system_deps.sh)` : "",
  ].filter(Boolean).join("; ");
  if (!missing) return false;
  if (process.env.CI === "true") throw new Error(`${missing}; CI=true, so a missing program is an error`);
  return missing;
}

/** A free loopback port (for the server's HTTP side, which has no "any port" setting). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    }).on("error", reject);
  });
}

/** A cacao-server process with its HTTP side on a free port. */
export interface CacaoServer {
  /** "http://127.0.0.1:PORT" of the page and the Connect API. */
  url: string;
  process: ChildProcess;
  stop(): void;
}

/** Starts cacao-server with `flags`; resolves once its log says the HTTP side serves. */
export async function startServer(...flags: string[]): Promise<CacaoServer> {
  const port = await freePort();
  const server = spawn(program!, ["--host", "127.0.0.1", "--port", "0", "--http-port", String(port), ...flags],
    { stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise<string>((resolve, reject) => {
    let log = "";
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const found = /board page and Connect API on (http:\/\/\S+?)\/?\s/.exec(log);
      if (found) resolve(found[1]);
    };
    server.stdout?.on("data", read);
    server.stderr?.on("data", read);
    server.on("exit", (code) => reject(new Error(`cacao-server ended (${code}) before serving:\n${log}`)));
  });
  return { url, process: server, stop: () => { server.kill(); } };
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css",
};

/** Serves the files of `dir` on a free loopback port: another origin than the
 *  cacao-server's, as someone else's site would be. */
export async function servePage(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const file = join(dir, path === "/" ? "index.html" : path.slice(1));
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** A page of headless Chromium (a fresh profile), closed by `close()`. */
export async function chromiumPage(): Promise<{ page: import("playwright-core").Page; close(): Promise<void> }> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  return {
    page,
    close: async () => {
      await browser.close();
      if (errors.length) throw new Error(`uncaught errors on the page: ${errors.join("; ")}`);
    },
  };
}
