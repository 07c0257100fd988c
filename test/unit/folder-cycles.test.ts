/**
 * core/ points one way as folders too: taking each folder of core/ as one node and each root
 * file of core/ as its own node, no path of imports leads back to where it started. The
 * file-level test (import-cycles.test.ts) allows `registry/a.ts → syncs/b.ts → registry/c.ts`;
 * this one does not, so a folder's base never has to know what is built on it. A failure
 * lists every cycle, `a → b → a`, with one file-level import that makes each edge.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const core = join(root, 'core');

/** Every .ts file under core/, as paths relative to the repository (`core/registry/resources.ts`). */
function coreFiles(): string[] {
  const entries = readdirSync(core, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

/** The node a file of core/ belongs to: its top folder (`core/registry/`), or itself at the root. */
function nodeOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? `core/${parts[1]}/` : path;
}

/** Relative specifiers a file imports, re-exports or loads with `import()`. */
function specifiers(text: string): string[] {
  const statics = text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm);
  const dynamics = text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g);
  return [...statics, ...dynamics].map((m) => m[1] as string);
}

/** node → node it imports → the first file-level import making that edge (`a.ts imports b.ts`). */
type FolderGraph = Map<string, Map<string, string>>;

function folderGraph(files: readonly string[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of files) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    for (const spec of specifiers(readFileSync(join(root, file), 'utf8'))) {
      const target = relative(root, resolve(root, dirname(file), spec))
        .split(sep)
        .join('/');
      if (!target.startsWith('core/')) continue;
      const to = nodeOf(target);
      if (to !== from && !edges.has(to)) edges.set(to, `${file} imports ${target}`);
    }
  }
  return graph;
}

/**
 * Every elementary cycle, each once: it is found from its smallest node, walking only through
 * larger ones. core/ has a few dozen nodes, so the plain search is quick.
 */
function elementaryCycles(graph: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const found: string[][] = [];
  const nodes = [...graph.keys()].sort();
  for (const start of nodes) {
    const path = [start];
    const walk = (at: string): void => {
      for (const next of [...(graph.get(at)?.keys() ?? [])].sort()) {
        if (next === start) found.push([...path, start]);
        else if (next > start && !path.includes(next)) {
          path.push(next);
          walk(next);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return found;
}

function describeCycle(cycle: readonly string[], graph: FolderGraph): string {
  const edges = cycle.slice(1).map((to, i) => `    ${graph.get(cycle[i] as string)?.get(to)}`);
  return [cycle.join(' → '), ...edges].join('\n');
}

describe('architecture: core/ folders import one way', () => {
  it('finds every cycle, each once, from its smallest node (the checker itself)', () => {
    const edge = (pairs: [string, string][]) => new Map(pairs.map(([to]) => [to, `→ ${to}`]));
    const g = new Map([
      ['a', edge([['b', '']])],
      [
        'b',
        edge([
          ['a', ''],
          ['c', ''],
        ]),
      ],
      ['c', edge([['a', '']])],
      ['d', edge([['a', '']])],
    ]);
    assert.deepEqual(elementaryCycles(g), [
      ['a', 'b', 'a'],
      ['a', 'b', 'c', 'a'],
    ]);
  });

  it('takes a folder of core/ as one node and a root file as its own', () => {
    assert.equal(nodeOf('core/registry/resources.ts'), 'core/registry/');
    assert.equal(nodeOf('core/platforms/meta/index.ts'), 'core/platforms/');
    assert.equal(nodeOf('core/plan.ts'), 'core/plan.ts');
  });

  it('no folder or root file of core/ reaches itself through its imports', () => {
    const graph = folderGraph(coreFiles());
    assert.ok(graph.size > 20, `core/ has ${graph.size} nodes`);
    const cycles = elementaryCycles(graph).map((c) => describeCycle(c, graph));
    assert.deepEqual(cycles, [], `\n${cycles.join('\n')}`);
  });
});
