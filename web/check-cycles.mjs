// Fails on any import cycle among the page's modules: reads the import and export-from
// statements of every .ts file under a folder (default: src), follows the relative ones,
// and prints each cycle found. Type-only imports count too: a cycle of types still ties
// the modules together. No dependencies; Node 18 or later.
//   node check-cycles.mjs [folder]
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The .ts files under `dir` (absolute paths, sorted). */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sources(path) : /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  }).sort();
}

// `import … from "x"`, `import type … from "x"`, `export … from "x"` (the clause holds only
// names, braces, commas, `*`, `as` and `type`, so it never runs on into code), and `import "x"`
const IMPORT = /^[ \t]*(?:import|export)\b[\w$*{},\s]*?\bfrom\s*["']([^"']+)["']|^[ \t]*import\s*["']([^"']+)["']/gm;

/** The relative module specifiers a source imports.
 *  @param {string} text @returns {string[]} */
export function importsOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, ""); // comments out
  return [...code.matchAll(IMPORT)].map((m) => m[1] ?? m[2]).filter((s) => s.startsWith("."));
}

/** The file a relative specifier names: as written, or with .ts, .tsx or /index.ts. */
function resolveFrom(file, spec) {
  const base = resolve(dirname(file), spec.replace(/\.js$/, ""));
  for (const path of [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) {
    try { if (statSync(path).isFile()) return path; } catch { /* not this one */ }
  }
  return null;
}

/** The import graph of the sources under `dir`: each file (relative to `dir`) with the files it imports.
 *  @param {string} dir @returns {Map<string, string[]>} */
export function importGraph(dir) {
  const root = resolve(dir), graph = new Map();
  for (const file of sources(root)) {
    const targets = importsOf(readFileSync(file, "utf8")).map((s) => resolveFrom(file, s))
      .filter((t) => t !== null && t.startsWith(root)).map((t) => relative(root, t));
    graph.set(relative(root, file), [...new Set(targets)].sort());
  }
  return graph;
}

/** The cycles of a graph: one per strongly connected component of several files (or a
 *  file that imports itself), each with the component's files and a shortest path round
 *  it, starting and ending at its first file.
 *  @param {Map<string, string[]>} graph @returns {{ files: string[], path: string[] }[]} */
export function findCycles(graph) {
  // Tarjan's strongly connected components
  let counter = 0;
  const index = new Map(), low = new Map(), stack = [], onStack = new Set(), components = [];
  const visit = (v) => {
    index.set(v, counter); low.set(v, counter); counter++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); component.push(w); } while (w !== v);
      components.push(component);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components
    .filter((c) => c.length > 1 || (graph.get(c[0]) ?? []).includes(c[0]))
    .map((c) => ({ files: c.sort(), path: cycleIn(graph, new Set(c), c[0]) }));
}

/** A shortest path from `start` back to itself inside `component` (breadth first). */
function cycleIn(graph, component, start) {
  const from = new Map(), queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i])) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let v = queue[i]; v !== start; v = from.get(v)) path.push(v);
        return [start, ...path.slice(1).reverse(), start];
      }
      if (!from.has(w)) { from.set(w, queue[i]); queue.push(w); }
    }
  }
  return [start, start];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? "src";
  const graph = importGraph(dir);
  const cycles = findCycles(graph);
  for (const { files, path } of cycles) {
    console.error(`import cycle: ${path.join(" -> ")}` +
      (files.length > 2 ? ` (one of the cycles among ${files.join(", ")})` : ""));
  }
  if (cycles.length) {
    console.error(`${dir}: ${cycles.length} group${cycles.length > 1 ? "s" : ""} of modules importing each other in a circle`);
    process.exitCode = 1;
  } else {
    console.log(`no import cycle among the ${graph.size} modules of ${dir}`);
  }
}
