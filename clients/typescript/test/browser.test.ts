// connect-web in a real browser: headless Chromium loads a page from another
// origin than the cacao-server (so every call is a CORS call), and the page
// makes every kind of call with @cacaoai/client, in JSON and in binary: unary
// (POST and GET), a server stream, errors with their details, a deadline. A page
// from an origin the server does not list cannot call it.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
// @ts-expect-error: a plain ES module of this package's scripts, without types
import { bundle } from "../../scripts/bundle.mjs";
import type { CallResults } from "./pages/calls.js";
import { chromiumPage, requirement, servePage, startServer } from "./support.js";
import type { CacaoServer } from "./support.js";

// the sources, from .test-build/test/ where this file runs
const PAGE = fileURLToPath(new URL("../../test/pages/calls.ts", import.meta.url));

describe("connect-web in Chromium", { skip: requirement({ server: true, chromium: true }), timeout: 180_000 }, () => {
  let server: CacaoServer, site: { url: string; close(): Promise<void> }, other: typeof site;
  let dir = "";
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "cacao-calls-"));
    await bundle(PAGE, join(dir, "calls.js"));
    writeFileSync(join(dir, "index.html"),
      '<!doctype html><meta charset="utf-8"><title>calls</title><script type="module" src="calls.js"></script>');
    site = await servePage(dir);
    other = await servePage(dir);
    server = await startServer("--max-searches", "2", "--http-cors-origins", site.url);
  });
  after(async () => {
    server?.stop();
    await site?.close();
    await other?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const binary of [false, true]) {
    test(`makes every kind of call from another origin, ${binary ? "binary" : "JSON"}`, async () => {
      const { page, close } = await chromiumPage();
      try {
        await page.goto(site.url);
        await page.waitForFunction("typeof window.runCalls === 'function'");
        const r = await page.evaluate(([url, b]) =>
          (window as unknown as { runCalls(u: string, b: boolean): Promise<CallResults> }).runCalls(url, b),
          [server.url, binary] as [string, boolean]);
        assert.equal(r.apiVersion, "cacao.v1");
        assert.deepEqual(r.methods.slice(0, 5), ["GET GetServerInfo", "POST NewGame", "GET ListLegalActions",
          "POST ApplyAction", "GET ValidateRecord"]);
        assert.ok(r.legalActions > 0 && r.appliedActions === 1 && r.valid);
        assert.deepEqual(r.reports.map((x) => x.sequence), r.reports.map((_, i) => i));
        assert.deepEqual(r.reports.map((x) => x.final), r.reports.map((_, i) => i === r.reports.length - 1));
        assert.ok(r.finalHasBestAction);
        assert.equal(r.unaryError.code, "invalid_argument");
        assert.equal(r.unaryError.reason, "ILLEGAL_ACTION");
        assert.match(r.unaryError.violations[0], /^action\.place\.x: /);
        assert.equal(r.streamError.code, "invalid_argument");
        assert.equal(r.streamError.reason, "UNKNOWN_LEVEL");
        assert.ok(r.deadlineFinal && r.deadlineLimitMs < 50_000, "the search's time limit is cut to the deadline");
        assert.equal(r.passedDeadline.code, "deadline_exceeded");
      } finally {
        await close();
      }
    });
  }

  test("cannot call from an origin the server does not list", async () => {
    const { page, close } = await chromiumPage();
    try {
      await page.goto(other.url);
      await page.waitForFunction("typeof window.tryCall === 'function'");
      const error = await page.evaluate((url) =>
        (window as unknown as { tryCall(u: string): Promise<{ code: string } | null> }).tryCall(url), server.url);
      assert.ok(error !== null, "the browser refused the call");
      assert.notEqual(error.code, "invalid_argument");
    } finally {
      await close();
    }
  });
});

