// The page's modules import each other in layers, never in a circle: check-cycles.mjs
// (`npm run cycles`, run by CI) fails on a cycle, and the layers below say who may import whom.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { findCycles, importGraph, importsOf } from "../check-cycles.mjs";

/** check-cycles.mjs run on a folder (from web/, where npm runs the tests). */
const check = (dir: string) => spawnSync(process.execPath, ["check-cycles.mjs", dir], { encoding: "utf8" });

test("the check fails on a two-file cycle and prints it", () => {
  const run = check("test/fixtures/cycle");
  assert.equal(run.status, 1);
  assert.match(run.stderr, /^import cycle: a\.ts -> b\.ts -> a\.ts$/m);
  assert.doesNotMatch(run.stderr, /c\.ts ->/); // c.ts is outside it (its imports are in comments)
});

test("the page's modules have no import cycle", () => {
  const run = check("src");
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /no import cycle among the \d+ modules of src/);
});

test("imports are read across lines, type-only or re-exported, and not from comments or code", () => {
  assert.deepEqual(importsOf('import {\n  x,\n  y,\n} from "./a";\nimport type { T } from "./b";\n' +
    'export { z } from "./c";\nimport "./d";\nimport { q } from "@scope/package";\n// import { w } from "./e";\n' +
    'export const s = "import { v } from \'./f\'";\n'), ["./a", "./b", "./c", "./d"]);
});

test("every cycle is found, a file importing itself too", () => {
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["d"]], ["e", ["a"]]]);
  assert.deepEqual(findCycles(graph), [
    { files: ["a", "b", "c"], path: ["a", "b", "c", "a"] }, { files: ["d"], path: ["d", "d"] }]);
});

// The layers, bottom first: each module may import its own layer and those below, except
// that views and controllers never import each other (controllers ask for a redraw through
// redraw.ts; views wire the Actions they are given). A new module is put in one of them here.
const LAYERS: Record<string, string[]> = {
  base: ["actions", "api", "board", "drill", "explain", "game", "graph", "names", "placing", "record", "review", "story",
    "trainer", "viewport"],
  state: ["dom", "redraw", "state"],
  view: ["panels", "practicepanel", "puzzlepanel", "render", "reviewpanel"],
  controller: ["files", "input", "play", "practising", "puzzling", "replay", "reviewing", "searches", "setup"],
  main: ["main"],
};
const MAY_IMPORT: Record<string, string[]> = {
  base: ["base"], state: ["base", "state"], view: ["base", "state", "view"],
  controller: ["base", "state", "controller"], main: Object.keys(LAYERS),
};

test("each module imports only its own layer and those below it", () => {
  const layerOf = new Map(Object.entries(LAYERS).flatMap(([layer, names]) => names.map((n) => [`${n}.ts`, layer])));
  const graph = importGraph("src");
  assert.deepEqual([...graph.keys()].filter((f) => !layerOf.has(f)), [], "modules in no layer");
  const wrong = [...graph].flatMap(([file, imports]) => imports
    .filter((i) => !MAY_IMPORT[layerOf.get(file)!].includes(layerOf.get(i)!))
    .map((i) => `${file} (${layerOf.get(file)}) imports ${i} (${layerOf.get(i)})`));
  assert.deepEqual(wrong, []);
});
