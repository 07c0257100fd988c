/**
 * Every per-platform fact lives on the platform's value, written in its folder (issue #77;
 * docs/architecture.md, "Platforms"): consent needs and vendor ids, erasure, API version and
 * sunset, audiences, names, match guidance. A table keyed by platform anywhere else is how such
 * facts used to spread, so this test scans the sources outside `core/platforms/<platform>/` for a
 * table keyed by platform in any of seven shapes (platformKeys, below) and fails on one unless it
 * is a registry that assembles the platforms, a key meaning something else, or a branch on the
 * shrink-only list (each listed below, with why). A scratch copy with one table of each shape
 * planted shows the check finds them all (issue #99).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { PLATFORM_LIST } from '../../../core/platforms/platforms.ts';
import { KeptFindings } from '../../support/kept-findings.ts';
import { codeFiles, scratchCopy } from '../../support/scratch-tree.ts';

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
  'core/alerts/alerts.ts webhook': "an alert connection's kind (a URL posted JSON), not the webhook platform",
  'functions/schedule/alerts.ts webhook': "an alert connection's kind, as the scheduler sends alerts",
  'core/privacy/platform-erasure.ts webhook':
    "a connection's kind (where erasure notices go), not the platform",
  'studio/web/rules.ts webhook': "a rule action's kind, as the studio's rule page shows it",
  'scripts/docs-prose.ts webhook': 'the word the docs write in lower case, which the prose check matches',
};

/**
 * Branches on one platform outside its folder when the check learnt every shape (issue #99):
 * facts the platform-facts work moves onto the Platform value (or shows to mean something else).
 * The list only shrinks: the last test fails on an entry that no longer matches, so take it out.
 */
const BRANCHES_TO_MOVE: Readonly<Record<string, string>> = {
  'core/access/needs.ts GOOGLE_ADS_PLATFORM': "Google Ads' access needs",
  'core/decision/decision.ts segment_action': "the catalogue destination's decision path",
  'core/delivery/preview.ts segment_action': "the catalogue destination's preview",
  'core/plan-warnings/catalog-actions.ts segment_action': "the catalogue destination's plan warnings",
  'studio/catalog-api.ts segment_action': "the studio's catalogue actions",
  'functions/forward/tracing.ts webhook': 'which platform is sent a traceparent header',
  'functions/schedule/google-ads-diagnostics.ts google_ads': "Google Ads' diagnostics job",
  'local/supervisor.ts google_ads': "Google Ads' local stand-in",
  'scripts/chaos-receiver.ts tiktok': "the chaos run's stand-in replies per platform",
};

const folders = readdirSync(join(root, 'core/platforms')).filter((n) =>
  statSync(join(root, 'core/platforms', n)).isDirectory(),
);

/** What names a platform as a key: its destination type, or its folder's name unless an ordinary word. */
const PLATFORM_KEYS = new Set([...PLATFORM_LIST.map((p) => p.type), ...folders.filter((f) => !WORDS.has(f))]);

/** What a person calls a platform (`Meta`, `Google Ads`, `TikTok Events API`), but a lone letter. */
const DISPLAY_NAMES = new Set(
  PLATFORM_LIST.flatMap((p) => [p.names.short, p.names.heading]).filter((n) => n.length > 1),
);

/** A name squeezed to compare spellings: `META_CAPI`, `metaCapi` and `meta_capi` are one. */
const squeeze = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');
const SQUEEZED = new Set(
  [...PLATFORM_KEYS, ...DISPLAY_NAMES].map(squeeze).filter((n) => !WORDS.has(n) && n.length > 1),
);

/**
 * The platform an expression names, if any: a string literal naming one (`'meta_capi'`, `'Meta'`),
 * a member chain through one (`PLATFORMS.meta_capi.type`), or a name spelled as one, alone or
 * before `platform` (`GA4_MP`, `googleAds.type`, `GA4_PLATFORM`; an ordinary word such as `meta`
 * only in capitals: `META.type`).
 */
function platformNamed(node: ts.Node | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (ts.isStringLiteralLike(node))
    return PLATFORM_KEYS.has(node.text) || DISPLAY_NAMES.has(node.text) ? node.text : undefined;
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isNonNullExpression(node))
    return platformNamed(node.expression);
  if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) {
    const name = ts.isPropertyAccessExpression(node) ? node.name.text : undefined;
    if (name !== undefined && PLATFORM_KEYS.has(name)) return name;
    return (
      platformNamed(node.expression) ??
      (ts.isElementAccessExpression(node) ? platformNamed(node.argumentExpression) : undefined)
    );
  }
  if (ts.isIdentifier(node)) {
    const squeezed = squeeze(node.text);
    const shouting = node.text === node.text.toUpperCase();
    const ordinary = WORDS.has(squeezed);
    const bare = squeezed.endsWith('platform') ? squeezed.slice(0, -'platform'.length) : squeezed;
    if (SQUEEZED.has(bare) && !(ordinary && !shouting)) return node.text;
    if (shouting && WORDS.has(bare) && bare.length > 1) return node.text;
  }
  return undefined;
}

/**
 * A destination as settings write it (`{ id: 'ga4', type: 'ga4_mp', … }`): configuration naming the
 * platform it uses, not a table of facts about platforms. Its `id` is the user's name for it.
 */
function isConfiguredDestination(row: ts.ObjectLiteralExpression): boolean {
  const names = new Set(row.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : '')));
  return names.has('id') && names.has('type');
}

const EQUALITY = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/**
 * Each place of `text` that keys a table by platform, in any of seven shapes: an object or type
 * literal's key (1: `{ meta_capi: 89 }`, also quoted), an entry of a Map or of entries
 * (2: `new Map([['ga4_mp', …]])`, `.set('tiktok_events', …)`), a computed key
 * (3: `{ [PLATFORMS.meta_capi.type]: … }`), a `case` of a switch (4: `case 'google_ads':`), an
 * equality with a platform (5: `d.type === META.type`), a row of an array keyed by platform
 * (6: `[{ type: 'meta_capi', … }]`), and a key that is a platform's display name
 * (7: `{ 'Google Ads': … }`). Each hit: `file:line name (shape)`.
 */
function platformKeys(where: string, text: string): string[] {
  const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const hit = (node: ts.Node, name: string, shape: string) => {
    const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    found.push(`${where}:${line} ${name} (${shape})`);
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isPropertyAssignment(node) ||
        ts.isShorthandPropertyAssignment(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isPropertySignature(node)) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))
    ) {
      if (PLATFORM_KEYS.has(node.name.text)) hit(node, node.name.text, 'key');
      else if (DISPLAY_NAMES.has(node.name.text)) hit(node, node.name.text, 'display-name key');
    }
    if (ts.isComputedPropertyName(node)) {
      const name = platformNamed(node.expression);
      if (name) hit(node, name, 'computed key');
    }
    if (ts.isArrayLiteralExpression(node) && ts.isArrayLiteralExpression(node.parent)) {
      const name = node.elements.length === 2 ? platformNamed(node.elements[0]) : undefined;
      if (name) hit(node, name, 'entry');
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'set' &&
      node.arguments.length === 2
    ) {
      const name = platformNamed(node.arguments[0]);
      if (name) hit(node, name, 'entry');
    }
    if (ts.isCaseClause(node)) {
      const name = platformNamed(node.expression);
      if (name) hit(node, name, 'case');
    }
    if (ts.isBinaryExpression(node) && EQUALITY.has(node.operatorToken.kind)) {
      const name = platformNamed(node.left) ?? platformNamed(node.right);
      if (name) hit(node, name, 'comparison');
    }
    if (
      ts.isPropertyAssignment(node) &&
      ts.isObjectLiteralExpression(node.parent) &&
      ts.isArrayLiteralExpression(node.parent.parent) &&
      !isConfiguredDestination(node.parent)
    ) {
      const name = ts.isStringLiteralLike(node.initializer) ? platformNamed(node.initializer) : undefined;
      if (name) hit(node, name, 'row');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * What platformKeys finds in each file, kept by content between runs (support/kept-findings.ts),
 * for the platform names of this run.
 */
const findings = new KeptFindings(import.meta.url, [PLATFORM_KEYS, DISPLAY_NAMES, SQUEEZED]);
after(() => findings.save());

/** The keyed tables of `where` that are not allowed: outside a platform's folder, not a registry. */
function violations(where: string, text: string): string[] {
  if (/^core\/platforms\/[^/]+\//.test(where) || REGISTRIES[where] !== undefined) return [];
  return findings
    .of(where, text, () => platformKeys(where, text))
    .filter((hit) => {
      const key = hit.split(' ')[1] as string;
      return (
        OTHER_MEANING[`${where} ${key}`] === undefined && BRANCHES_TO_MOVE[`${where} ${key}`] === undefined
      );
    });
}

/** Every disallowed platform-keyed table in the code of `base` (the repository, or a scratch copy). */
function tableViolations(base: string): string[] {
  return codeFiles(
    base,
    SOURCE_DIRS.filter((d) => existsSync(join(base, d))),
  ).flatMap((f) => violations(f, readFileSync(join(base, f), 'utf8')));
}

describe('platforms: every per-platform fact on the Platform value, in its folder', () => {
  it('no table outside core/platforms/<platform>/ is keyed by a platform, but the registries', () => {
    assert.deepEqual(tableViolations(root), []);
  });

  it('a scratch tree with a table of each of the seven shapes planted: the check names every one, and only those', () => {
    // A small tree, not a copy of the house (the first test reads the house): the planted files
    // beside the files that the allow-lists excuse, which must stay unreported in the copy too.
    const scratch = scratchCopy([...Object.keys(REGISTRIES), 'schemas/rule.ts', 'core/access/needs.ts']);
    // file → its code, and the `name (shape)` the check must report for it.
    const PLANTED: Record<string, [string, string]> = {
      'core/consent/object-key.ts': [
        "export const VENDORS = { meta_capi: 89, 'ga4_mp': 755 };",
        'meta_capi (key)',
      ],
      'core/access/type-key.ts': ['export type Urls = { google_ads: string };', 'google_ads (key)'],
      'gateway/map.ts': [
        "export const COOKIES = new Map([['ga4_mp', '_ga'], ['meta_capi', '_fbp']]);",
        'ga4_mp (entry)',
      ],
      'studio/map-set.ts': [
        "const m = new Map<string, number>();\nm.set('tiktok_events', 1);",
        'tiktok_events (entry)',
      ],
      'core/decision/entries.ts': [
        "export const T = Object.fromEntries([['reddit_capi', 'rdt_cid']]);",
        'reddit_capi (entry)',
      ],
      'core/privacy/computed.ts': [
        "import { PLATFORMS } from '../platforms/platforms.ts';\nexport const E = { [PLATFORMS.meta_capi.type]: 'x' };",
        'meta_capi (computed key)',
      ],
      'core/plan/computed-literal.ts': [
        "export const E = { ['linkedin_capi']: 'li_fat_id' };",
        'linkedin_capi (computed key)',
      ],
      'gateway/switch.ts': [
        "export function clickId(type: string) {\n  switch (type) {\n    case 'microsoft_uet': return 'msclkid';\n    default: return undefined;\n  }\n}",
        'microsoft_uet (case)',
      ],
      'core/access/compare-type.ts': [
        'declare const GA4: { type: string };\nexport const isGa4 = (d: { type: string }) => d.type === GA4.type;',
        'GA4 (comparison)',
      ],
      'studio/compare-literal.ts': [
        "export const warn = (t: string) => t !== 'pinterest_capi';",
        'pinterest_capi (comparison)',
      ],
      'core/enrich/compare-constant.ts': [
        'declare const SNAPCHAT_PLATFORM: { type: string };\nexport const f = (t: string) => SNAPCHAT_PLATFORM.type == t;',
        'SNAPCHAT_PLATFORM (comparison)',
      ],
      'core/consent/rows.ts': [
        "export const ROWS = [{ platform: 'x_conversions', vendor: 1 }, { platform: 'reddit_capi', vendor: 2 }];",
        'x_conversions (row)',
      ],
      'studio/web/display-names.ts': [
        "export const WARN = { Meta: 'ads', 'Google Ads': 'ads', LinkedIn: 'ads' };",
        'Google Ads (display-name key)',
      ],
      'schemas/display-name-computed.ts': ["export const W = { ['TikTok']: 1 };", 'TikTok (computed key)'],
    };
    try {
      for (const [file, [code]] of Object.entries(PLANTED)) scratch.plant(file, `${code}\n`);
      // The same table inside a platform's folder is where it belongs.
      scratch.plant(
        'core/platforms/meta/planted.ts',
        "export const V = { meta_capi: 89 };\nexport const c = (t: string) => t === 'meta_capi';\n",
      );
      const found = tableViolations(scratch.root);
      const missed = Object.entries(PLANTED)
        .filter(([file, [, hit]]) => !found.some((p) => p.startsWith(`${file}:`) && p.endsWith(` ${hit}`)))
        .map(([file, [, hit]]) => `${file}: ${hit}`);
      assert.deepEqual(missed, [], `found:\n${found.join('\n')}`);
      assert.deepEqual(
        found.filter((p) => !Object.keys(PLANTED).some((file) => p.startsWith(`${file}:`))),
        [],
        'the rest of the copy keys no table by platform',
      );
    } finally {
      scratch.remove();
    }
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
    for (const entry of [...Object.keys(OTHER_MEANING), ...Object.keys(BRANCHES_TO_MOVE)]) {
      const [file, key] = entry.split(' ') as [string, string];
      const keys = platformKeys(file, readFileSync(join(root, file), 'utf8'));
      assert.ok(
        keys.some((k) => k.split(' ')[1] === key),
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
