// Bundles a page's script that imports "@cacaoai/client" into one ES module for
// browsers, with esbuild, taking the package from this folder's TypeScript
// sources. The example embed page is built with it (`npm run example`), and
// the browser tests bundle their pages the same way.
//
//   node scripts/bundle.mjs ENTRY.ts OUT.js
import { build } from "esbuild";
import { fileURLToPath } from "node:url";

const source = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** Bundles `entry` (TypeScript or JavaScript) to `outfile`; returns the output path. */
export async function bundle(entry, outfile) {
  await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    alias: { "@cacaoai/client": source },
    outfile,
    legalComments: "none",
    logLevel: "warning",
  });
  return outfile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [entry, outfile] = process.argv.slice(2);
  if (!entry || !outfile) {
    console.error("usage: node scripts/bundle.mjs ENTRY OUTFILE");
    process.exit(2);
  }
  console.log(`built ${await bundle(entry, outfile)}`);
}
