// The example embed page (clients/examples/embed-page) in Chromium: someone
// else's front end, on another origin than the cacao-server, plays a game
// against the AI through @cacaoai/client. The page is bundled as
// `npm run example` bundles it.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
// @ts-expect-error: a plain ES module of this package's scripts, without types
import { bundle } from "../../scripts/bundle.mjs";
import { chromiumPage, requirement, servePage, startServer } from "./support.js";
import type { CacaoServer } from "./support.js";

// the example's sources, from .test-build/test/ where this file runs
const EXAMPLE = fileURLToPath(new URL("../../../examples/embed-page/", import.meta.url));
const MOVES = 4;

interface EmbedState { busy: boolean; over: boolean; reviewed: boolean; record?: { actions: unknown[] } }

describe("the example embed page in Chromium", { skip: requirement({ server: true, chromium: true }), timeout: 180_000 }, () => {
  let server: CacaoServer, site: { url: string; close(): Promise<void> }, stranger: typeof site;
  let dir = "";
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "cacao-embed-"));
    mkdirSync(join(dir, "dist"));
    await bundle(join(EXAMPLE, "embed.ts"), join(dir, "dist", "embed.js"));
    copyFileSync(join(EXAMPLE, "index.html"), join(dir, "index.html"));
    site = await servePage(dir);
    stranger = await servePage(dir);
    server = await startServer("--max-searches", "2", "--http-cors-origins", site.url);
  });
  after(async () => {
    server?.stop();
    await site?.close();
    await stranger?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("plays moves against the AI from another origin", async () => {
    const { page, close } = await chromiumPage();
    try {
      await page.goto(`${site.url}/?server=${encodeURIComponent(server.url)}&seed=7&review=40`);
      await page.waitForSelector("#new:not([disabled])");
      await page.selectOption("#level", "beginner");
      const settled = () => page.waitForFunction(() => {
        const s = (window as unknown as { embed: EmbedState }).embed;
        return !s.busy && (s.over || document.querySelectorAll("#moves button").length > 0);
      });
      await page.click("#new");
      await settled();
      const actions = () => page.evaluate(() =>
        (window as unknown as { embed: EmbedState }).embed.record?.actions.length ?? 0);
      for (let move = 0; move < MOVES; move++) {
        const before = await actions();
        await page.locator("#moves button").first().click();
        await settled();
        assert.ok((await actions()) > before, "the move was played");
      }
      const log = await page.textContent("#log") ?? "";
      // the seats named as every cacaoai front end names them: colour, and who plays
      assert.ok(log.split("\n").filter((l) => l.startsWith("red (you)")).length >= MOVES, log);
      assert.ok(log.split("\n").some((l) => l.startsWith("yellow (AI)")), "the AI played");
      assert.equal(await page.textContent("#error"), "");
      assert.match(await page.textContent("#score") ?? "", /red \(you\) -?\d+ gold · yellow \(AI\) -?\d+ gold/);
      // the game so far reviewed: a row per decision with its class, then each seat's accuracy
      await page.click("#review");
      await page.waitForFunction(() => (window as unknown as { embed: EmbedState }).embed.reviewed, undefined,
        { timeout: 120_000 });
      assert.equal(await page.textContent("#error"), "");
      const rows = await page.locator("#review-rows tr").evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
      assert.equal(rows.length, await actions());
      assert.deepEqual(rows.map((r) => Number(r[0])), rows.map((_, i) => i + 1));
      for (const [, seat, , cls, better] of rows) {
        assert.match(seat, /^(red \(you\)|yellow \(AI\))$/);
        assert.match(cls, /^(best|good|forced|inaccuracy \?!|mistake \?|blunder \?\?)$/);
        if (/^(best|forced)/.test(cls)) assert.equal(better, "");
      }
      assert.match(await page.textContent("#review-summary") ?? "",
        /^red \(you\): accuracy \d+\.\d%.* · yellow \(AI\): accuracy \d+\.\d%/);
    } finally {
      await close();
    }
  });

  test("says so when the server does not let its origin call", async () => {
    const { page, close } = await chromiumPage();
    try {
      await page.goto(`${stranger.url}/?server=${encodeURIComponent(server.url)}`);
      await page.waitForFunction(() => (document.getElementById("error")?.textContent ?? "") !== "");
      assert.ok(await page.isDisabled("#new"));
    } finally {
      await close();
    }
  });
});
