/**
 * Every per-platform fact lives on the platform's value, written in its folder (issue #77;
 * docs/architecture.md, "Platforms"): consent needs and vendor ids, erasure, API version and
 * sunset, audiences, names, match guidance. A table keyed by platform anywhere else is how such
 * facts used to spread, so this test scans the sources for an object (or type) whose key is a
 * platform's destination type or folder name, outside `core/platforms/<platform>/`, and fails on
 * one unless it is a registry that assembles the platforms (listed below, with why).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { PLATFORM_LIST } from '../../../core/platforms/platforms.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The code that knows platforms (the emulators know none; tests build their own tables). */
const SOURCE_DIRS = [
  'core',
  'adapters',
  'functions',
  'gateway',
  'studio',
  'cli',
  'local',
  'infra',
  'scripts',
  'schemas',
  'bench',
];

/** Folder names that are ordinary words as keys (object metadata `meta`, a coordinate `x`). */
const WORDS = new Set(['meta', 'x']);

/** Registries that assemble the platforms: they key by platform by design. */
const REGISTRIES: Readonly<Record<string, string>> = {
  'core/platforms/platforms.ts': 'the table of platforms every other table is derived from',
  'core/platforms/facts.ts':
    "the browser-safe list of the folders' facts (the studio's bundle cannot load the drivers)",
  'local/receiver/main.ts': "the local stand-ins' starters (servers: I/O, which core's folders never hold)",
};

/** Keys that name something else than the platform, and what. */
const OTHER_MEANING: Readonly<Record<string, string>> = {
  'schemas/rule.ts webhook': "a rule action's kind (posting to a connection), not the webhook platform",
  'core/console/rule-form.ts webhook': "a rule action's kind, as the studio's rule form builds it",
  'schemas/sync.ts webhook': "a sync's destination kind (a connection's URL), not the webhook platform",
  'bench/syncs.ts webhook': "a sync's destination kind, in the syncs bench",
  'gateway/collect-paths.ts ga4':
    "GA4's collect protocol arriving at the gateway (a source), not the GA4 destination",
};

function tsFiles(dir: string): string[] {
  const abs = join(root, dir);
  return readdirSync(abs).flatMap((name) => {
    if (name === 'node_modules') return [];
    const path = join(abs, name);
    if (statSync(path).isDirectory()) return tsFiles(relative(root, path));
    return name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

const folders = readdirSync(join(root, 'core/platforms')).filter((n) =>
  statSync(join(root, 'core/platforms', n)).isDirectory(),
);

/** What names a platform as a key: its destination type, or its folder's name unless an ordinary word. */
const PLATFORM_KEYS = new Set([...PLATFORM_LIST.map((p) => p.type), ...folders.filter((f) => !WORDS.has(f))]);

/** Each `key` of an object literal or type literal in `text` that names a platform, with its line. */
function platformKeys(where: string, text: string): string[] {
  const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertyAssignment(node) ||
        ts.isShorthandPropertyAssignment(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isPropertySignature(node)) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      PLATFORM_KEYS.has(node.name.text)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${where}:${line} ${node.name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The keyed tables of `where` that are not allowed: outside a platform's folder, not a registry. */
function violations(where: string, text: string): string[] {
  if (/^core\/platforms\/[^/]+\//.test(where) || REGISTRIES[where] !== undefined) return [];
  return platformKeys(where, text).filter((hit) => {
    const key = hit.slice(hit.indexOf(' ') + 1);
    return OTHER_MEANING[`${where} ${key}`] === undefined;
  });
}

describe('platforms: every per-platform fact on the Platform value, in its folder', () => {
  it('no table outside core/platforms/<platform>/ is keyed by a platform, but the registries', () => {
    const problems = SOURCE_DIRS.flatMap((d) => tsFiles(d)).flatMap((f) =>
      violations(f, readFileSync(join(root, f), 'utf8')),
    );
    assert.deepEqual(problems, []);
  });

  it('finds a planted table keyed by platform type or folder name, quoted or not', () => {
    const planted = [
      "const VENDORS = { meta_capi: 89, 'ga4_mp': 755 };",
      'type Urls = { google_ads: string };',
      "const GUIDANCE = { tiktok: 'ttclid first' };",
      "const ERASURE = { 'google-ads': { scope: 's' } };",
    ];
    for (const code of planted)
      assert.notDeepEqual(violations('core/privacy/planted.ts', code), [], `${code} was not found`);
    // The same table inside a platform's folder, or a word that is not a platform, passes.
    assert.deepEqual(violations('core/platforms/meta/planted.ts', planted[0] as string), []);
    assert.deepEqual(violations('core/privacy/planted.ts', 'const o = { meta: 1, x: 2, value: 3 };'), []);
  });

  it('each allow-listed exception still exists (the lists do not rot)', () => {
    for (const file of Object.keys(REGISTRIES))
      assert.notDeepEqual(platformKeys(file, readFileSync(join(root, file), 'utf8')), [], file);
    for (const entry of Object.keys(OTHER_MEANING)) {
      const [file, key] = entry.split(' ') as [string, string];
      const keys = platformKeys(file, readFileSync(join(root, file), 'utf8'));
      assert.ok(
        keys.some((k) => k.endsWith(` ${key}`)),
        `${entry} no longer keys a table`,
      );
    }
  });

  it('the facts moved to the value are read from it: erasure, names, match guidance', async () => {
    const { PLATFORMS } = await import('../../../core/platforms/platforms.ts');
    const { MATCH_GUIDANCE } = await import('../../../core/platforms/standard-events.ts');
    assert.equal(PLATFORMS.ga4_mp.erasure?.baseUrl, 'https://analyticsadmin.googleapis.com');
    assert.deepEqual(PLATFORMS.ga4_mp.erasure?.identifiers, ['user_id', 'anonymous_id']);
    assert.equal(PLATFORMS.meta_capi.erasure, undefined);
    assert.equal(PLATFORMS.meta_capi.names.short, 'Meta');
    // Keyed by destination type, so the studio's destinations page finds Meta's (it looked under `meta`).
    assert.match(MATCH_GUIDANCE.meta_capi ?? '', /^Meta: /);
    for (const p of PLATFORM_LIST) assert.ok(p.names.short !== '' && p.names.heading !== '', p.type);
  });
});
