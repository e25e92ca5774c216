// The page's unit tests: each test/*.test.ts bundled by esbuild (as build.mjs bundles the
// page, with @cacaoai/client from its sources) into a temporary folder, then run by
// node:test. Needs Node 18 or later (no TypeScript loader: esbuild strips the types).
// Node has no page: the client of the service (api.ts) is made for a page at
// http://page.test, and no test calls it.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const tests = readdirSync("test").filter((f) => f.endsWith(".test.ts")).sort();
const out = mkdtempSync(join(tmpdir(), "cacao-web-test-"));
try {
  await build({
    entryPoints: tests.map((f) => join("test", f)),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    conditions: ["source"],
    define: { "location.origin": JSON.stringify("http://page.test") },
    outdir: out,
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
  });
  const files = tests.map((f) => join(out, f.replace(/\.ts$/, ".mjs")));
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...files], { stdio: "inherit" });
  process.exitCode = run.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
