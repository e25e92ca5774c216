// Builds the board page into ../server/static (committed; CI rebuilds and diffs it).
import { build } from "esbuild";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";

const out = new URL("../server/static/", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const name of readdirSync("public")) cpSync(`public/${name}`, out + name);
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2020",
  outfile: out + "app.js",
  legalComments: "none",
  logLevel: "warning",
});
console.log(`built ${out}`);
