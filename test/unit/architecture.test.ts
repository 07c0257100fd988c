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

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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
 * Modules core/ and schemas/ never import: I/O, and what loads code or keeps state across calls
 * at run time (node:module's require, node:async_hooks' stores, vm).
 */
const IO_MODULES =
  /^(node:)?(fs|fs\/promises|http|https|http2|net|tls|dgram|child_process|worker_threads|cluster|module|async_hooks|vm)$/;
const CLIENTS = /^(@google-cloud\/|google-auth-library|google-gax|@grpc\/|@pulumi\/|@duckdb\/)/;

/**
 * What a pure file never does, found in its syntax tree: load a module at run time (`import()`,
 * `require()`, `createRequire`) or patch the process's globals (an assignment to, or
 * `Object.defineProperty`/`Object.assign` on, `globalThis`/`global`). `typeof import('…')` is a
 * type and stays allowed.
 */
function runtimeEffects(where: string, text: string): string[] {
  const problems: string[] = [];
  const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const isGlobal = (node: ts.Node): boolean => {
    let n: ts.Node = node;
    while (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) n = n.expression;
    return ts.isIdentifier(n) && (n.text === 'globalThis' || n.text === 'global');
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword)
        problems.push(`${where}:${line(node)} loads a module at run time (import())`);
      if (ts.isIdentifier(callee) && (callee.text === 'require' || callee.text === 'createRequire'))
        problems.push(`${where}:${line(node)} loads a module at run time (${callee.text}())`);
      const first = node.arguments[0];
      if (
        ts.isPropertyAccessExpression(callee) &&
        /^(defineProperty|defineProperties|assign|setPrototypeOf)$/.test(callee.name.text) &&
        first !== undefined &&
        isGlobal(first)
      )
        problems.push(`${where}:${line(node)} patches globalThis (${callee.getText()})`);
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment &&
      (ts.isPropertyAccessExpression(node.left) || ts.isElementAccessExpression(node.left)) &&
      isGlobal(node.left)
    )
      problems.push(`${where}:${line(node)} patches globalThis (${node.left.getText()} =)`);
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

describe('architecture: dependency direction', () => {
  it('core and schemas import no Google client, no I/O module and nothing above them', () => {
    const problems: string[] = [];
    for (const file of [...tsFiles('core'), ...tsFiles('schemas')])
      problems.push(...impurities(relative(root, file), readFileSync(file, 'utf8')));
    assert.deepEqual(problems, []);
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
    const problems: string[] = [];
    for (const file of ['gateway', 'studio', 'functions'].flatMap((d) => tsFiles(d))) {
      const where = relative(root, file);
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        const line = () => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        if (ts.isThrowStatement(node) && BUILDS_ERROR.test(node.getText()))
          problems.push(`${where}:${line()} throws a refusal`);
        if (
          ts.isClassDeclaration(node) &&
          /Refus/.test(node.name?.text ?? '') &&
          node.heritageClauses?.some((h) => /\bError\b/.test(h.getText()))
        )
          problems.push(`${where}:${line()} declares ${node.name?.text}, an exception for refusals`);
        ts.forEachChild(node, visit);
      };
      visit(source);
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
