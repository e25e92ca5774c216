// Builds the board page into ../server/static (committed; CI rebuilds and diffs it).
//
// The page's client is the @cacaoai/client package (../clients/typescript), which
// npm copies into node_modules (install-links, .npmrc) together with its libraries,
// and which is bundled from its TypeScript sources (the "source" export condition).
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/** The files under `dir` (relative paths, sorted). */
function files(dir, prefix = "") {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(dir, join(prefix, e.name)) : [join(prefix, e.name)]).sort();
}

// a copy older than the package's sources would build a stale page
const source = "../clients/typescript", copy = "node_modules/@cacaoai/client";
const stale = !existsSync(copy) || ["package.json", ...files(source, "src").map((f) => f)].some((f) =>
  !existsSync(join(copy, f)) || !readFileSync(join(copy, f)).equals(readFileSync(join(source, f))))
  || files(copy, "src").length !== files(source, "src").length;
if (stale) {
  console.error(`${copy} differs from ${source}: run \`npm install\` in web/ to copy it again`);
  process.exit(1);
}

const out = new URL("../server/static/", import.meta.url).pathname;
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const name of readdirSync("public")) cpSync(`public/${name}`, out + name);
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  format: "esm",
  target: "es2020",
  conditions: ["source"],
  outfile: out + "app.js",
  minify: true, // the protobuf runtime and the generated descriptors are most of it
  legalComments: "none",
  logLevel: "warning",
});
console.log(`built ${out}`);
