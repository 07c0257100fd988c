/**
 * Keeps the dependency direction of docs/style.md true without a lint plugin:
 * schemas ← core (pure) ← adapters ← entry points; and the entry points' one error style,
 * refusals returned as Step values (core/step.ts), never thrown.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ENTRY_FILES } from '../support/entry-files.ts';
import { KeptFindings } from '../support/kept-findings.ts';
import { codeFiles, scratchCopy } from '../support/scratch-tree.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What the parser found in each file, kept by content between runs (support/kept-findings.ts). */
const findings = new KeptFindings(import.meta.url);
after(() => findings.save());

function tsFiles(dir: string): string[] {
  const abs = join(root, dir);
  let entries: string[];
  try {
    entries = readdirSync(abs);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(abs, name);
    if (statSync(path).isDirectory()) return tsFiles(relative(root, path));
    return name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  return importsOfText(readFileSync(file, 'utf8'));
}

function importsOfText(text: string): string[] {
  const specs: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm))
    specs.push(m[1] as string);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1] as string);
  return specs;
}

/**
 * Modules core/ and schemas/ never import: I/O, and what loads code, keeps state across calls or
 * acts on the process at run time (node:module's require, node:async_hooks' stores, vm, timers,
 * the process object).
 */
const IO_MODULES =
  /^(node:)?(fs|fs\/promises|http|https|http2|net|tls|dgram|child_process|worker_threads|cluster|module|async_hooks|vm|timers|timers\/promises|process)$/;
const CLIENTS = /^(@google-cloud\/|google-auth-library|google-gax|@grpc\/|@pulumi\/|@duckdb\/)/;

/** The names the global object goes by. */
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window', 'self']);
/** Built-ins a patch would change for every caller in the process. */
const BUILT_INS = new Set(
  'Object Array String Number Boolean Symbol BigInt Function Promise Map Set WeakMap WeakSet Date Math JSON Reflect RegExp Error TypeError RangeError Intl console crypto performance URL URLSearchParams TextEncoder TextDecoder Buffer AbortController AbortSignal structuredClone fetch'.split(
    ' ',
  ),
);
/** What schedules work for later: a pure function returns its answer, it leaves nothing running. */
const TIMERS = new Set(['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']);
/** The calls that change an object's properties or prototype, their target first. */
const PATCHING_CALLS =
  /^(Object\.(defineProperty|defineProperties|assign|setPrototypeOf)|Reflect\.(set|defineProperty|deleteProperty|setPrototypeOf))$/;

/** `x`, `(x)`, `x as T`, `x!`, `<T>x`, `x satisfies T`: the expression inside. */
function bare(node: ts.Expression): ts.Expression {
  let n = node;
  while (
    ts.isParenthesizedExpression(n) ||
    ts.isAsExpression(n) ||
    ts.isNonNullExpression(n) ||
    ts.isTypeAssertionExpression(n) ||
    ts.isSatisfiesExpression(n)
  )
    n = n.expression;
  return n;
}

/** The identifier a member chain starts from (`a` of `a.b['c'].d`), and whether it passes a prototype. */
function chainOf(node: ts.Expression): { root: string | undefined; prototype: boolean } {
  let n = bare(node);
  let prototype = false;
  while (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) {
    const name = ts.isPropertyAccessExpression(n)
      ? n.name.text
      : ts.isStringLiteralLike(n.argumentExpression)
        ? n.argumentExpression.text
        : '';
    if (name === 'prototype' || name === '__proto__') prototype = true;
    n = bare(n.expression);
  }
  return { root: ts.isIdentifier(n) ? n.text : undefined, prototype };
}

/**
 * What a pure file never does, found in its syntax tree: load a module at run time (`import()`,
 * `require()`, `createRequire`); patch what others share — the global object (also through an
 * alias, `const g = globalThis; g.fetch = …`), a built-in (`Math.random = …`), a prototype
 * (`Array.prototype.x = …`, `Object.defineProperty(String.prototype, …)`) or an imported module
 * (`import * as m …; m.f = …`), by assignment, `delete`, `++`, Object.defineProperty/assign/
 * setPrototypeOf or Reflect's setters; start a timer (setTimeout, setInterval, setImmediate,
 * queueMicrotask); or touch the process (`process.on(…)`, `process.exit()`). `typeof import('…')`
 * is a type and stays allowed, as do reading a global and a local named like one.
 */
function runtimeEffects(where: string, text: string): string[] {
  const problems: string[] = [];
  const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const aliases = new Set<string>(); // names bound to the global object or one of its members
  const imported = new Set<string>(); // names an import binds
  for (const statement of source.statements) {
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (clause?.name) imported.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) imported.add(e.name.text);
  }
  const isGlobal = (root: string | undefined) =>
    root !== undefined && (GLOBAL_OBJECTS.has(root) || aliases.has(root));
  /** Why changing `target` (a member chain, or an object handed to a patching call) is impure. */
  const patched = (target: ts.Expression, member: boolean): string | undefined => {
    const { root, prototype } = chainOf(target);
    if (prototype) return 'patches a prototype';
    if (root === undefined) return undefined;
    if (GLOBAL_OBJECTS.has(root)) return 'patches globalThis';
    if (aliases.has(root)) return 'patches globalThis through an alias';
    if (BUILT_INS.has(root) && (member || ts.isIdentifier(bare(target)))) return 'patches a built-in';
    if (imported.has(root)) return 'patches an import';
    return undefined;
  };
  const report = (node: ts.Node, reason: string | undefined, what: string) => {
    if (reason) problems.push(`${where}:${line(node)} ${reason} (${what})`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer) {
      const init = chainOf(node.initializer);
      if (isGlobal(init.root) && !init.prototype) {
        if (ts.isIdentifier(node.name)) aliases.add(node.name.text);
        else
          for (const element of ts.isObjectBindingPattern(node.name) ? node.name.elements : [])
            if (ts.isIdentifier(element.name)) aliases.add(element.name.text);
      }
    }
    if (ts.isCallExpression(node)) {
      const callee = bare(node.expression);
      if (callee.kind === ts.SyntaxKind.ImportKeyword)
        problems.push(`${where}:${line(node)} loads a module at run time (import())`);
      if (ts.isIdentifier(callee) && (callee.text === 'require' || callee.text === 'createRequire'))
        problems.push(`${where}:${line(node)} loads a module at run time (${callee.text}())`);
      const first = node.arguments[0];
      if (first !== undefined && PATCHING_CALLS.test(callee.getText()))
        report(node, patched(first, false), callee.getText());
    }
    const assigned =
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
        ? node.left
        : ts.isDeleteExpression(node)
          ? node.expression
          : (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
              (node.operator === ts.SyntaxKind.PlusPlusToken ||
                node.operator === ts.SyntaxKind.MinusMinusToken)
            ? node.operand
            : undefined;
    if (assigned) {
      const member = bare(assigned);
      if (ts.isPropertyAccessExpression(member) || ts.isElementAccessExpression(member))
        report(node, patched(member, true), `${member.getText()} =`);
    }
    if (ts.isIdentifier(node) && (TIMERS.has(node.text) || node.text === 'process')) {
      const parent = node.parent;
      const isName =
        (ts.isPropertyAccessExpression(parent) &&
          parent.name === node &&
          !isGlobal(chainOf(parent.expression).root)) ||
        ((ts.isPropertyAssignment(parent) ||
          ts.isPropertySignature(parent) ||
          ts.isMethodDeclaration(parent) ||
          ts.isVariableDeclaration(parent) ||
          ts.isParameter(parent) ||
          ts.isBindingElement(parent) ||
          ts.isFunctionDeclaration(parent)) &&
          parent.name === node);
      const inType =
        ts.findAncestor(node, (n) => ts.isTypeNode(n) || ts.isImportDeclaration(n)) !== undefined;
      if (!isName && !inType) {
        const use = ts.isPropertyAccessExpression(parent) && parent.expression === node ? parent : node;
        const what = ts.isPropertyAccessExpression(use) ? use.getText() : node.text;
        problems.push(
          `${where}:${line(node)} ${TIMERS.has(node.text) ? 'starts a timer' : 'touches the process'} (${what})`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return problems;
}

/** Every reason a file of core/ or schemas/ is not pure (docs/style.md), its imports first. */
function impurities(where: string, text: string): string[] {
  const problems: string[] = [];
  for (const spec of importsOfText(text)) {
    if (CLIENTS.test(spec)) problems.push(`${where} imports ${spec}`);
    if (IO_MODULES.test(spec)) problems.push(`${where} imports ${spec} (I/O)`);
    if (spec.startsWith('.')) {
      const target = relative(root, resolve(dirname(join(root, where)), spec));
      if (!target.startsWith('core/') && !target.startsWith('schemas/'))
        problems.push(`${where} imports ${target}`);
    }
  }
  if (/process\.env/.test(text)) problems.push(`${where} reads process.env`);
  return [...problems, ...runtimeEffects(where, text)];
}

/** Every impurity of the code files of core/ and schemas/ under `base` (the repository, or a scratch copy). */
function purityProblems(base: string): string[] {
  return codeFiles(base, ['core', 'schemas']).flatMap((file) => {
    const text = readFileSync(join(base, file), 'utf8');
    return findings.of(file, text, () => impurities(file, text));
  });
}

describe('architecture: dependency direction', () => {
  it('core and schemas import no Google client, no I/O module and nothing above them', () => {
    assert.deepEqual(purityProblems(root), []);
  });

  it('a scratch tree of core/ files with impure ones planted: the check names every one, and only those', () => {
    // A small tree, not a copy of core/ (the first test reads it): the planted files beside the
    // real files they import, which must stay unreported.
    const scratch = scratchCopy(['core/pii.ts', 'core/platforms/platforms.ts', 'core/runtime-config.ts']);
    const PLANTED: Record<string, [string, string]> = {
      alias: [
        'const g = globalThis;\nexport function f() { g.fetch = () => 1; }',
        'patches globalThis through an alias (g.fetch =)',
      ],
      'alias-cast': [
        'const g = globalThis as unknown as Record<string, unknown>;\ng["fetch"] = 1;',
        'patches globalThis through an alias (g["fetch"] =)',
      ],
      'alias-destructured': [
        'const { Math: m } = globalThis;\nm.random = () => 4;',
        'patches globalThis through an alias (m.random =)',
      ],
      prototype: [
        'Array.prototype.last = function () { return this.at(-1); };',
        'patches a prototype (Array.prototype.last =)',
      ],
      'prototype-defined': [
        "Object.defineProperty(String.prototype, 'x', { value: 1 });",
        'patches a prototype (Object.defineProperty)',
      ],
      'proto-key': [
        "const o = {};\no['__proto__'].polluted = true;",
        "patches a prototype (o['__proto__'].polluted =)",
      ],
      'built-in': ['Math.random = () => 0.5;', 'patches a built-in (Math.random =)'],
      'built-in-assign': [
        'Object.assign(JSON, { parse: () => ({}) });',
        'patches a built-in (Object.assign)',
      ],
      'import-namespace': [
        "import * as hashing from '../pii.ts';\n(hashing as any).sha256 = () => '';",
        'patches an import ((hashing as any).sha256 =)',
      ],
      'import-named': [
        "import { PLATFORMS } from '../platforms/platforms.ts';\ndelete (PLATFORMS as any).meta_capi;",
        'patches an import ((PLATFORMS as any).meta_capi =)',
      ],
      'import-reflect': [
        "import { ENV } from '../runtime-config.ts';\nReflect.set(ENV, 'X', 'y');",
        'patches an import (Reflect.set)',
      ],
      timeout: ['export const later = (f: () => void) => setTimeout(f, 10);', 'starts a timer (setTimeout)'],
      interval: [
        'export const every = (f: () => void) => globalThis.setInterval(f, 10);',
        'starts a timer (setInterval)',
      ],
      immediate: [
        'const s = setImmediate;\nexport const soon = (f: () => void) => s(f);',
        'starts a timer (setImmediate)',
      ],
      microtask: [
        'export const next = (f: () => void) => queueMicrotask(f);',
        'starts a timer (queueMicrotask)',
      ],
      'timers-module': [
        "import { setTimeout as wait } from 'node:timers/promises';\nexport const pause = () => wait(5);",
        'imports node:timers/promises (I/O)',
      ],
      'process-on': ["process.on('exit', () => undefined);", 'touches the process (process.on)'],
      'process-once': [
        "globalThis.process.once('SIGTERM', () => undefined);",
        'touches the process (process)',
      ],
      'process-exit': ['export function stop() { process.exit(1); }', 'touches the process (process.exit)'],
      'process-module': [
        "import { on } from 'node:process';\non('exit', () => undefined);",
        'imports node:process (I/O)',
      ],
    };
    try {
      for (const [name, [code]] of Object.entries(PLANTED))
        scratch.plant(`core/planted/${name}.ts`, `${code}\n`);
      const found = purityProblems(scratch.root);
      const missed = Object.entries(PLANTED)
        .filter(
          ([name, [, reason]]) =>
            !found.some((p) => p.startsWith(`core/planted/${name}.ts`) && p.endsWith(reason)),
        )
        .map(([name, [, reason]]) => `${name}: ${reason}`);
      assert.deepEqual(missed, [], `found:\n${found.join('\n')}`);
      assert.deepEqual(
        found.filter((p) => !p.startsWith('core/planted/')),
        [],
        'the rest of the copy is pure',
      );
    } finally {
      scratch.remove();
    }
  });

  it('the purity check finds each kind of planted violation (module loading, hooks, global patches)', () => {
    const planted: Record<string, string> = {
      "import { createRequire } from 'node:module';": 'imports node:module (I/O)',
      "import { AsyncLocalStorage } from 'node:async_hooks';": 'imports node:async_hooks (I/O)',
      "import { readFileSync } from 'fs';": 'imports fs (I/O)',
      "const m = await import('./x.ts');": 'loads a module at run time (import())',
      'const m = import(name);': 'loads a module at run time (import())',
      "const m = require('x');": 'loads a module at run time (require())',
      'globalThis.fetch = myFetch;': 'patches globalThis (globalThis.fetch =)',
      "globalThis['fetch'] = myFetch;": "patches globalThis (globalThis['fetch'] =)",
      "Object.defineProperty(globalThis, 'fetch', { value: f });":
        'patches globalThis (Object.defineProperty)',
      "import { x } from '../../adapters/egress.ts';": 'imports adapters/egress.ts',
    };
    for (const [code, reason] of Object.entries(planted)) {
      const found = impurities('core/platforms/planted.ts', code);
      assert.ok(
        found.some((p) => p.endsWith(reason)),
        `${code} → ${found.join('; ') || 'nothing found'}`,
      );
    }
    // What stays allowed: a type query, reading a global, a local variable named like one.
    const clean = [
      "type T = typeof import('./catalog.ts');",
      'const f = globalThis.fetch;',
      'let global = 1; global = 2;',
      "const row: Record<string, unknown> = {};\nObject.defineProperty(row, '__proto__', { value: 1 });",
      'const copy = Object.assign({}, { a: 1 });',
      'type T = { setTimeout: number; process: string };',
      'const o = { process: 1, setTimeout: 2 };\nconst p = o.process + o.setTimeout;',
      'const now = Date.now();',
    ];
    for (const code of clean) assert.deepEqual(impurities('core/platforms/planted.ts', code), [], code);
  });

  it('inside core, layers import only downwards: base ← linkage ← platforms ← domain ← delivery', () => {
    // The base: contracts and helpers every layer may use.
    const BASE = [
      'core/validation.ts',
      'core/errors.ts',
      'core/step.ts',
      'core/json-limits.ts',
      'core/event.ts',
      // An event's identity and its delivery id: a webhook's delivery and the send-once claim alike.
      'core/identity.ts',
      // Who sent an event: the normaliser fills a browser's device, the drivers' action_source follows it.
      'core/sender.ts',
      // Defined events are part of the contract the normaliser checks.
      'core/definitions/defined-events.ts',
      'core/definitions/event-validator.ts',
      'core/definitions/definitions.ts',
      'core/warehouse/rows.ts',
      // Hashing and scrubbing personal data: used by the store path and the platform payloads.
      'core/pii.ts',
      // The egress policy: the gate's rules, and the refusal the platforms' runtimes pass on.
      'core/egress/policy.ts',
      // Standard Webhooks signing: the translators verify with it, the webhook platform signs.
      'core/signing/standard-webhooks.ts',
    ];
    // Consent: the signals' readers and their one resolver (pure functions of the stored event)
    // decide at the decision layer and say what each platform is told, so both layers use them.
    const BASE_FOLDERS = ['core/consent/'];
    const layerOf = (path: string): number => {
      if (path.startsWith('schemas/') || BASE.includes(path) || BASE_FOLDERS.some((f) => path.startsWith(f)))
        return 0;
      if (path.startsWith('core/linkage/')) return 1;
      if (path.startsWith('core/platforms/')) return 2;
      if (path.startsWith('core/delivery/')) return 4;
      return 3; // the domain: settings, plan, decision, store, warehouse…
    };
    const problems: string[] = [];
    for (const file of tsFiles('core')) {
      const where = relative(root, file);
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(file), spec));
        if (layerOf(target) > layerOf(where)) problems.push(`${where} imports ${target} (upwards)`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it("entry points do not import each other, but for the CLI using the gateway's token code", () => {
    const ENTRY = [
      'functions/store/',
      'functions/forward/',
      'gateway/',
      'studio/',
      'infra/',
      'local/',
      'cli/',
      'bench/',
    ];
    // `eventbus token|key` manage the gateway's credentials; `eventbus start` runs the local
    // environment; the studio's creator issues translate tokens into the gateway's store; infra
    // and bench reuse what they deploy or measure; the studio reads request bodies with the
    // gateway's reader (size cap, slow-body cut, JSON depth), one implementation of both.
    const ALLOWED: Record<string, string[]> = {
      'cli/': ['gateway/credentials.ts', 'gateway/token-store.ts', 'local/'],
      'bench/': ['gateway/', 'local/', 'functions/', 'studio/'],
      'infra/': ['gateway/openapi.ts'],
      'local/': ['functions/', 'gateway/'],
      'gateway/': [],
      'studio/': ['gateway/credentials.ts', 'gateway/token-store.ts', 'gateway/body.ts'],
      'functions/store/': [],
      'functions/forward/': [],
    };
    const problems: string[] = [];
    for (const entry of ENTRY) {
      for (const file of tsFiles(entry)) {
        const where = relative(root, file);
        for (const spec of importsOf(file)) {
          if (!spec.startsWith('.')) continue;
          const target = relative(root, resolve(dirname(file), spec));
          const other = ENTRY.find((e) => e !== entry && target.startsWith(e));
          if (other && !(ALLOWED[entry] ?? []).some((a) => target.startsWith(a)))
            problems.push(`${where} imports ${target}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('adapters do not import entry points', () => {
    const problems: string[] = [];
    for (const file of tsFiles('adapters')) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(file), spec));
        const allowed = ['core/', 'adapters/', 'schemas/', 'core/runtime-config.ts'];
        if (!allowed.some((a) => target.startsWith(a)))
          problems.push(`${relative(root, file)} imports ${target}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('nothing outside test/ and bench/ imports test code', () => {
    const problems: string[] = [];
    const dirs = [
      'adapters',
      'cli',
      'core',
      'emulators',
      'functions',
      'gateway',
      'studio',
      'infra',
      'local',
      'schemas',
      'scripts',
    ];
    for (const file of dirs.flatMap((d) => tsFiles(d))) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(dirname(file), spec));
        if (target.startsWith('test/')) problems.push(`${relative(root, file)} imports ${target}`);
      }
      // Also paths built at run time (`join(root, 'test', 'support', …)`).
      if (/\btest['"`]?\s*[,/]\s*['"`]?support\b/.test(readFileSync(file, 'utf8')))
        problems.push(`${relative(root, file)} names test/support/`);
    }
    assert.deepEqual(problems, []);
  });

  it('entry points return refusals as Step values (core/step.ts) and never throw them', () => {
    // Building an API error, or a refusal's own exception class, in a throw.
    const BUILDS_ERROR = /\b(apiError|withViolations|fail|refuse)\(|\bnew\s+\w*Refus\w*\(/;
    const refusals = (where: string, text: string): string[] => {
      const found: string[] = [];
      const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        const line = () => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (ts.isThrowStatement(node) && BUILDS_ERROR.test(node.getText()))
          found.push(`${where}:${line()} throws a refusal`);
        if (
          ts.isClassDeclaration(node) &&
          /Refus/.test(node.name?.text ?? '') &&
          node.heritageClauses?.some((h) => /\bError\b/.test(h.getText()))
        )
          found.push(`${where}:${line()} declares ${node.name?.text}, an exception for refusals`);
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    };
    const problems: string[] = [];
    for (const file of ['gateway', 'studio', 'functions'].flatMap((d) => tsFiles(d))) {
      const where = relative(root, file);
      const text = readFileSync(file, 'utf8');
      problems.push(...findings.of(`refusals ${where}`, text, () => refusals(where, text)));
    }
    // The studio's admin actions (its *-api.ts files, which server.ts dispatches to) say so in
    // their types: each exported function gives a Step.
    const actions = tsFiles('studio').filter((f) => f.endsWith('-api.ts'));
    let declared = 0;
    for (const file of actions) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      for (const fn of source.statements.filter(ts.isFunctionDeclaration)) {
        if (!fn.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
        declared++;
        const type = fn.type?.getText() ?? '(none)';
        if (!/^(Promise<)?Step</.test(type))
          problems.push(`${relative(root, file)}: ${fn.name?.text} returns ${type}, not a Step`);
      }
    }
    assert.ok(declared >= 4, `the studio's action files export ${declared} functions`);
    assert.deepEqual(problems, []);
  });

  it('code bundled for Cloud Functions and Cloud Run has no top-level await (bundled as CommonJS)', () => {
    const problems: string[] = [];
    for (const dir of ['adapters', 'core', 'functions', 'gateway', 'schemas'])
      for (const file of tsFiles(dir)) {
        const lines = readFileSync(file, 'utf8').split('\n');
        lines.forEach((line, i) => {
          if (/^(await\s|const\s+\w+\s*=\s*await\s|for\s+await\s)/.test(line))
            problems.push(`${relative(root, file)}:${i + 1}`);
        });
      }
    assert.deepEqual(problems, []);
  });
});

describe('architecture: the house (docs/style.md, "Where things live")', () => {
  it("core's root holds at most 14 files: the event contract and what every feature shares", () => {
    const files = readdirSync(join(root, 'core')).filter((n) => statSync(join(root, 'core', n)).isFile());
    assert.ok(files.length <= 14, `core/ holds ${files.length} files at its root: ${files.join(', ')}`);
  });

  // One exception, a convention: `x.ts` is the contract of one, `xs.ts` the table of all
  // (core/platforms/platform.ts and platforms.ts).
  it('no two files of one folder have names two letters apart (schedule.ts / scheduler.ts)', () => {
    const problems: string[] = [];
    const dirs = ['core', 'adapters', 'gateway', 'studio', 'studio/web', 'functions', 'cli', 'local'];
    const folders = dirs.flatMap((d) => [d, ...subfolders(d)]);
    for (const dir of folders) {
      const names = readdirSync(join(root, dir))
        .filter((n) => n.endsWith('.ts'))
        .map((n) => n.slice(0, -3));
      for (const a of names)
        for (const b of names)
          if (a < b && b.startsWith(a) && b.length - a.length <= 2 && b !== `${a}s`)
            problems.push(`${dir}/${a}.ts and ${b}.ts`);
    }
    assert.deepEqual(problems, []);
  });

  it('every environment variable a deployable reads is in the ENV table, read through it', async () => {
    const { ENV } = await import('../../core/runtime-config.ts');
    const names = new Set<string>(Object.values(ENV));
    // Entry files hand `process.env` over whole; everything else takes an explicit `env`.
    const problems: string[] = [];
    for (const dir of ['core', 'adapters', 'functions', 'gateway', 'studio'])
      for (const file of tsFiles(dir)) {
        const where = relative(root, file);
        const code = readFileSync(file, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/^\s*\/\/.*$/gm, '');
        if (/process\.env/.test(code) && !ENTRY_FILES.includes(where))
          problems.push(`${where} reads process.env`);
        if (/process\.env(\.[A-Za-z_]|\[\s*['"`])/.test(code))
          problems.push(`${where} reads a variable by its literal name`);
        if (where !== 'core/runtime-config.ts')
          for (const m of code.matchAll(/['"`](EVENTBUS_[A-Z_]+)/g))
            problems.push(`${where} names ${m[1]} (use ENV)`);
      }
    // What the Pulumi program sets for a deployable is something the deployable reads.
    for (const file of tsFiles('infra'))
      for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(EVENTBUS_[A-Z_]+):/gm))
        if (!names.has(m[1] as string)) problems.push(`${relative(root, file)} sets ${m[1]}, not in ENV`);
    assert.deepEqual(problems, []);
  });

  it('the synchronous-or-promise path is written one way: core/maybe-async.ts', () => {
    const problems: string[] = [];
    for (const dir of ['core', 'adapters', 'functions', 'gateway', 'studio', 'cli', 'local'])
      for (const file of tsFiles(dir)) {
        const where = relative(root, file);
        if (where === 'core/maybe-async.ts') continue;
        if (/instanceof Promise\b/.test(readFileSync(file, 'utf8'))) problems.push(where);
      }
    assert.deepEqual(problems, []);
  });
});

describe('architecture: where tests live (docs/style.md)', () => {
  it("every folder of test/unit/ is a feature folder of core/ or a theme docs/style.md's table names", () => {
    const style = readFileSync(join(root, 'docs/style.md'), 'utf8');
    const coreFolders = subfolders('core').filter((d) => d.split('/').length === 2);
    const problems: string[] = [];
    for (const dir of subfolders('test/unit').filter((d) => d.split('/').length === 3)) {
      const name = dir.split('/')[2] as string;
      const named = style.includes(`\`test/unit/${name}/\``) || style.includes(`\`${name}/\``);
      if (!coreFolders.includes(`core/${name}`) && !named) problems.push(dir);
    }
    assert.deepEqual(problems, []);
  });
});

function subfolders(dir: string): string[] {
  return readdirSync(join(root, dir))
    .filter((n) => statSync(join(root, dir, n)).isDirectory())
    .flatMap((n) => [`${dir}/${n}`, ...subfolders(`${dir}/${n}`)]);
}
