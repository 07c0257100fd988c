/**
 * The house points one way as folders (issue #99): each top-level folder is one node (`infra/`,
 * `scripts/`, `gateway/`…), but core/ and test/, which hold layers and suites, count each
 * subfolder as its own node (`core/registry/`, `test/support/`) and each root file as its own.
 * No path of imports leads back to where it started, anywhere: the file-level test
 * (import-cycles.test.ts) allows `registry/a.ts → syncs/b.ts → registry/c.ts`; this one does
 * not, so a folder's base never has to know what is built on it. A failure lists every cycle,
 * `a → b → a`, with one file-level import that makes each edge.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { KeptFindings } from '../support/kept-findings.ts';
import { codeFiles, REPO_ROOT, scratchCopy } from '../support/scratch-tree.ts';

/** Folders whose subfolders are nodes of their own. */
const SPLIT = new Set(['core', 'test']);

/** The node a file belongs to: its top folder, a subfolder of core/ or test/, or a root file itself. */
function nodeOf(path: string): string {
  const parts = path.split('/');
  if (SPLIT.has(parts[0] as string)) return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : path;
  return parts.length > 1 ? `${parts[0]}/` : path;
}

/**
 * Relative specifiers a file imports, re-exports or loads with `import()`, read by TypeScript's
 * pre-processor (so an import written inside a string or a comment is not one).
 */
function specifiers(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('.'));
}

/** The specifiers of each file, kept by content between runs (support/kept-findings.ts). */
const findings = new KeptFindings(import.meta.url);
after(() => findings.save());

/** node → node it imports → the first file-level import making that edge (`a.ts imports b.ts`). */
type FolderGraph = Map<string, Map<string, string>>;

function folderGraph(root: string, files: readonly string[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of files) {
    const from = nodeOf(file);
    const edges = graph.get(from) ?? new Map<string, string>();
    graph.set(from, edges);
    const text = readFileSync(join(root, file), 'utf8');
    for (const spec of findings.of(file, text, () => specifiers(text))) {
      const target = relative(root, resolve(root, dirname(file), spec))
        .split(sep)
        .join('/');
      const to = nodeOf(target);
      if (to !== from && !edges.has(to)) edges.set(to, `${file} imports ${target}`);
    }
  }
  return graph;
}

/**
 * Every elementary cycle, each once: it is found from its smallest node, walking only through
 * larger ones. The house has about sixty nodes, so the plain search is quick.
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

describe("architecture: the house's folders import one way", () => {
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

  it('takes a top folder as one node, core/ and test/ by subfolder, a root file as its own', () => {
    assert.equal(nodeOf('core/registry/resources.ts'), 'core/registry/');
    assert.equal(nodeOf('core/platforms/meta/index.ts'), 'core/platforms/');
    assert.equal(nodeOf('core/plan.ts'), 'core/plan.ts');
    assert.equal(nodeOf('test/support/chromium.ts'), 'test/support/');
    assert.equal(nodeOf('studio/web/creator.ts'), 'studio/');
    assert.equal(nodeOf('scripts/build-functions.ts'), 'scripts/');
  });

  it('no folder or root file of the house reaches itself through its imports', () => {
    const graph = folderGraph(REPO_ROOT, codeFiles(REPO_ROOT));
    assert.ok(graph.size > 50, `the house has ${graph.size} nodes`);
    const cycles = elementaryCycles(graph).map((c) => describeCycle(c, graph));
    assert.deepEqual(cycles, [], `\n${cycles.join('\n')}`);
  });

  it('finds a cycle planted anywhere: between top folders, through three, inside core/ or test/', () => {
    // A small tree, not a copy of the house (the test above reads the house): the plants and the
    // real file one of them imports.
    const scratch = scratchCopy(['infra/config.ts']);
    try {
      // Each plant closes a cycle of the kinds the house could grow (scripts → infra, bench →
      // test/support, core/decision → core/consent, local → gateway → core).
      scratch.plant('infra/planted.ts', "import { x } from '../scripts/planted.ts';\n");
      scratch.plant('scripts/planted.ts', "export { y } from '../infra/config.ts';\n");
      scratch.plant('test/support/planted.ts', "const m = await import('../../bench/planted.ts');\n");
      scratch.plant('bench/planted.ts', "import '../test/support/planted.ts';\n");
      scratch.plant('core/consent/planted.ts', "import { d } from '../decision/planted.ts';\n");
      scratch.plant('core/decision/planted.ts', "import { c } from '../consent/planted.ts';\n");
      scratch.plant('core/planted.ts', "import { l } from '../local/planted.ts';\n");
      scratch.plant('local/planted.ts', "import { g } from '../gateway/planted.ts';\n");
      scratch.plant('gateway/planted.ts', "import { c } from '../core/planted.ts';\n");
      const graph = folderGraph(scratch.root, codeFiles(scratch.root));
      const cycles = elementaryCycles(graph).map((c) => c.join(' → '));
      for (const expected of [
        'infra/ → scripts/ → infra/',
        'bench/ → test/support/ → bench/',
        'core/consent/ → core/decision/ → core/consent/',
        'core/planted.ts → local/ → gateway/ → core/planted.ts',
      ])
        assert.ok(cycles.includes(expected), `${expected} not found among:\n${cycles.join('\n')}`);
    } finally {
      scratch.remove();
    }
  });
});
