/**
 * One folder is the whole platform (issue 36, docs/architecture.md "Platforms"): each
 * `core/platforms/<p>/` exports one `Platform` value, `core/platforms/platforms.ts` lists them,
 * and every other table is derived from that list. These tests keep it so: the table and the
 * folders agree, each derived table holds each platform's own values, no folder reaches into
 * another or into a derived table, no code outside a folder names a platform's type, and a fake
 * platform added the documented way — a folder, a line in the table, a line in the browser-safe
 * list of facts, its settings type — with every slot of its facts filled shows up in every
 * consumer (derived tables, the decision layer, the creator's step 3 and consent warning, the
 * gateway's cookies, enrichment's click ids, the access table, the docs) without another file
 * touched.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { driverFor } from '../../../core/platforms/drivers.ts';
import { PLATFORM_FACTS } from '../../../core/platforms/facts.ts';
import { DEFAULT_MAPPINGS, ENVELOPES, isMappedType, MAPPED_TYPES } from '../../../core/platforms/mappings.ts';
import type { Platform, PlatformFacts } from '../../../core/platforms/platform.ts';
import { PLATFORM_LIST, PLATFORMS } from '../../../core/platforms/platforms.ts';
import { DEFAULT_CONSENT, DESTINATION_REQUIREMENTS } from '../../../core/platforms/requirements.ts';
import { PLATFORM_TYPES, STANDARD_EVENTS, VALUE_TARGETS } from '../../../core/platforms/standard-events.ts';
import { DestinationType } from '../../../schemas/settings.ts';
import { claimStableDir } from '../../support/scratch-tree.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const PLATFORMS_DIR = join(root, 'core/platforms');

/** The platform folders: every directory under core/platforms/. */
const folders = readdirSync(PLATFORMS_DIR).filter((n) => statSync(join(PLATFORMS_DIR, n)).isDirectory());

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file, as paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/gm),
    ...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] as string);
  return specs.map((s) => relative(root, resolve(dirname(file), s)));
}

/** The folder of core/platforms/ a path is in (`meta`), or undefined for the shared files. */
const folderOf = (path: string): string | undefined => /^core\/platforms\/([^/]+)\//.exec(path)?.[1];

/**
 * Only the table imports the folders, but for the browser-safe list of facts, which reads each
 * folder's data-only `facts.ts`.
 */
const mayImportFolder = (where: string, target: string): boolean =>
  where === 'core/platforms/platforms.ts' ||
  (where === 'core/platforms/facts.ts' && target.endsWith('/facts.ts'));

/** The files that hold a table derived from the list, and the list itself. */
const TABLES = [
  'core/platforms/platforms.ts',
  'core/platforms/requirements.ts',
  'core/platforms/drivers.ts',
  'core/platforms/mappings.ts',
  'core/platforms/standard-events.ts',
  'core/platforms/mapping-check.ts',
  'core/platforms/facts.ts',
];

describe('architecture: one folder is the whole platform', () => {
  it('the table lists each folder once, under the type its Platform value declares', async () => {
    assert.deepEqual(Object.keys(PLATFORMS).sort(), DestinationType.anyOf.map((t) => t.const).sort());
    for (const [type, p] of Object.entries(PLATFORMS)) assert.equal(p.type, type);
    assert.deepEqual(Object.keys(PLATFORM_FACTS).sort(), Object.keys(PLATFORMS).sort());
    const exported: Platform[] = [];
    for (const folder of folders) {
      const index = join(PLATFORMS_DIR, folder, 'index.ts');
      assert.ok(existsSync(index), `core/platforms/${folder}/ has an index.ts`);
      const values = Object.values((await import(index)) as Record<string, unknown>);
      const platforms = values.filter((v): v is Platform => PLATFORM_LIST.includes(v as Platform));
      assert.equal(platforms.length, 1, `core/platforms/${folder}/index.ts exports one listed Platform`);
      exported.push(platforms[0] as Platform);
    }
    assert.deepEqual(new Set(exported), new Set(PLATFORM_LIST));
  });

  it("every derived table holds each platform's own values", () => {
    for (const p of PLATFORM_LIST) {
      assert.equal(DESTINATION_REQUIREMENTS[p.type], p.requirements);
      assert.equal(DEFAULT_CONSENT[p.type], p.consent);
      // The browser-safe facts are the very values the platform carries.
      const facts = PLATFORM_FACTS[p.type];
      for (const slot of Object.keys(facts) as (keyof PlatformFacts)[])
        assert.equal(p[slot], facts[slot], `${p.type}: ${slot} is its facts' own`);
      assert.equal(driverFor(p.type), p.driver);
      assert.equal(p.driver.type, p.type);
      // One list of secrets: the driver checks what the platform requires.
      assert.equal(p.driver.requiredSecrets, p.requirements.secrets);
      const mapped = p.payload.kind === 'mapped';
      assert.equal(isMappedType(p.type), mapped);
      assert.equal(MAPPED_TYPES.includes(p.type as never), mapped);
      assert.equal(PLATFORM_TYPES.includes(p.type as never), mapped);
      if (isMappedType(p.type) && p.payload.kind === 'mapped') {
        assert.equal(DEFAULT_MAPPINGS[p.type], p.defaults?.events);
        assert.equal(ENVELOPES[p.type], p.defaults?.envelope);
        assert.equal(STANDARD_EVENTS[p.type], p.payload.standardEvents);
        assert.equal(VALUE_TARGETS[p.type], p.payload.valueTargets);
      }
    }
  });

  it('a folder imports only itself and the shared files; the shared files import no folder; only the table imports the folders', () => {
    const problems: string[] = [];
    for (const file of tsFiles(PLATFORMS_DIR)) {
      const where = relative(root, file);
      const own = folderOf(where);
      for (const target of importsOf(file)) {
        const other = folderOf(target);
        if (own !== undefined) {
          if (other !== undefined && other !== own)
            problems.push(`${where} imports ${target} (another folder)`);
          if (TABLES.includes(target)) problems.push(`${where} imports ${target} (a table of all platforms)`);
        } else if (other !== undefined && !mayImportFolder(where, target)) {
          problems.push(`${where} imports ${target} (only platforms.ts lists the folders)`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('the facts stay browser-safe: they load no platform value, driver or table, only data', () => {
    // What the browser bundle loads: relative imports that are not type-only, followed through.
    const runtimeImports = (file: string): string[] =>
      [
        ...readFileSync(join(root, file), 'utf8').matchAll(
          /^\s*import\s+(?!type\s)[^'"]*?from\s+['"](\.[^'"]+)['"]/gm,
        ),
      ].map((m) => relative(root, resolve(dirname(join(root, file)), m[1] as string)));
    const seen = new Set<string>();
    const queue = ['core/platforms/standard-events.ts', 'core/enrich/click-ids.ts'];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      queue.push(...runtimeImports(file));
    }
    // A folder's data files, and GA4's client-id.ts: pure functions of a cookie's text, no imports.
    const allowed = (f: string) =>
      /^core\/platforms\/[^/]+\/(facts|standard-events|api-version|age-limit|client-id)\.ts$/.test(f) ||
      ['core/platforms/facts.ts', 'core/platforms/standard-events.ts', 'core/enrich/click-ids.ts'].includes(
        f,
      );
    assert.deepEqual(
      [...seen].filter((f) => !allowed(f)),
      [],
    );
    for (const folder of folders)
      assert.ok(seen.has(`core/platforms/${folder}/facts.ts`), `core/platforms/${folder}/facts.ts is listed`);
  });

  it("no code in core/ outside a platform's folder and the table names a platform's type", () => {
    const mappedTypes = new RegExp(`['"](${MAPPED_TYPES.join('|')})['"]`);
    const problems: string[] = [];
    for (const file of tsFiles(join(root, 'core'))) {
      const where = relative(root, file);
      if (folderOf(where) !== undefined || where === 'core/platforms/platforms.ts') continue;
      const text = readFileSync(file, 'utf8');
      if (mappedTypes.test(text)) problems.push(`${where} names ${mappedTypes.exec(text)?.[1]}`);
      if (/\.type\s*[!=]==\s*['"]webhook['"]/.test(text))
        problems.push(`${where} tests for the webhook type`);
    }
    assert.deepEqual(problems, []);
  });

  describe('no hand-written list of destination types outside the lists of platforms', () => {
    /** The code that could list platforms: every tracked source but the tests (which build their own), the emulators' and the examples. */
    const sources = (): string[] =>
      execFileSync('git', ['ls-files', '*.ts'], { cwd: root, encoding: 'utf8' })
        .split('\n')
        .filter((f) => f !== '' && !/^(test|emulators|examples)\//.test(f) && existsSync(join(root, f)));
    /** Where a list of types is the source or a registry by design, and why. */
    const ALLOWED: Readonly<Record<string, string>> = {
      'schemas/settings.ts': 'DestinationType itself, the settings union every list is checked against',
      'local/receiver/main.ts': "the local stand-ins' own behaviour (which accept only their own token)",
    };
    const TYPES = new Set<string>(PLATFORM_LIST.map((p) => p.type));
    const typeIn = (node: ts.Node): string | undefined => {
      if (ts.isStringLiteral(node) && TYPES.has(node.text)) return node.text;
      if (ts.isLiteralTypeNode(node)) return typeIn(node.literal);
      // Type.Literal('meta_capi') and the like.
      if (ts.isCallExpression(node) && node.arguments.length === 1)
        return typeIn(node.arguments[0] as ts.Node);
      return undefined;
    };
    /** Each array or union in `text` holding three or more destination types, with its line. */
    const lists = (where: string, text: string): string[] => {
      // Parsing only the files naming three types at all keeps the scan quick.
      if ([...TYPES].filter((t) => text.includes(t)).length < 3) return [];
      const source = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
      const found: string[] = [];
      const visit = (node: ts.Node): void => {
        const items = ts.isArrayLiteralExpression(node)
          ? node.elements
          : ts.isUnionTypeNode(node)
            ? node.types
            : undefined;
        const named = items?.map(typeIn).filter((t) => t !== undefined) ?? [];
        if (named.length >= 3)
          found.push(
            `${where}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${named.join(', ')}`,
          );
        ts.forEachChild(node, visit);
      };
      visit(source);
      return found;
    };
    const violations = (where: string, text: string): string[] =>
      folderOf(where) !== undefined || TABLES.includes(where) || ALLOWED[where] !== undefined
        ? []
        : lists(where, text);

    it('finds none in the code', () => {
      assert.deepEqual(
        sources().flatMap((f) => violations(f, readFileSync(join(root, f), 'utf8'))),
        [],
      );
      // The allowed ones still hold a list (the exceptions do not rot).
      for (const f of Object.keys(ALLOWED))
        assert.notDeepEqual(lists(f, readFileSync(join(root, f), 'utf8')), [], f);
    });

    it('finds a planted list: an array, a set, a union type, schema literals', () => {
      const planted = [
        "const ADS = ['meta_capi', 'tiktok_events', 'reddit_capi'];",
        "const ADS = new Set(['google_ads', 'linkedin_capi', 'x_conversions']);",
        "type Ads = 'meta_capi' | 'ga4_mp' | 'snapchat_capi';",
        "const T = Type.Union([Type.Literal('meta_capi'), Type.Literal('ga4_mp'), Type.Literal('webhook')]);",
      ];
      for (const code of planted) assert.notDeepEqual(violations('studio/web/planted.ts', code), [], code);
      // Two types are a comparison, not a list; a platform's folder may list what it likes.
      assert.deepEqual(violations('studio/web/planted.ts', "const T = ['meta_capi', 'ga4_mp'];"), []);
      assert.deepEqual(violations('core/platforms/meta/planted.ts', planted[0] as string), []);
    });
  });

  describe('a fake platform added as docs/architecture.md says', function () {
    // Starts one Node process on a copy of core/, schemas/ and the consumers outside them.
    this.timeout(60_000);
    let dir = '';
    after(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** What adding a platform touches (the stand-in and the docs section are outside core/). */
    const FILES = {
      'core/platforms/fake/standard-events.ts': `
export const FAKE_STANDARD_EVENTS = {
  standardEvents: ['buy', 'lead'],
  valueTargets: { value: 'amount', currency: 'money' },
};
`,
      // Every slot of the facts filled: each consumer must show it.
      'core/platforms/fake/facts.ts': `
import { FAKE_STANDARD_EVENTS } from './standard-events.ts';

export const FAKE_FACTS = {
  type: 'fake_ads',
  names: { short: 'Fake', heading: 'Fake Ads API' },
  consent: ['ads'],
  tcfVendor: 4242,
  clickIds: [{ param: 'fakeclid', channel: 'social' }],
  cookies: [
    {
      name: '_fake',
      purposes: ['ads'],
      withDestination: true,
      value: ({ campaign, index, now }) => campaign.fakeclid ? \`fk.\${index}.\${now}.\${campaign.fakeclid}\` : undefined,
    },
  ],
  pageCookies: [{ cookie: '_fkp', field: 'fkp' }],
  step3: { kind: 'id', label: 'Fake conversion id', pattern: '[0-9]+', numeric: true },
  events: FAKE_STANDARD_EVENTS,
  apiVersion: { version: 'v1', carrier: 'path', sunset: null, source: 'https://fake.example/versions' },
  counts: { none: 'fake counts nothing', doc: 'https://fake.example/counts' },
};
`,
      'core/platforms/fake/index.ts': `
import { definePlatform } from '../platform.ts';
import { baseUrl, configText } from '../prepare.ts';
import { httpReason, networkReason, throttledOrServerError } from '../responses.ts';
import { FAKE_FACTS } from './facts.ts';
import { FAKE_STANDARD_EVENTS } from './standard-events.ts';

export const FAKE_PLATFORM = definePlatform({
  ...FAKE_FACTS,
  requirements: { config: ['account_id'], optionalConfig: [], secrets: ['api_key'], baseUrl: false, testEventCode: false },
  payload: {
    kind: 'mapped',
    mapping: {
      envelope: { id: 'event_id' },
      events: { purchase: { event: 'buy', fields: { amount: { from: 'value', transform: ['number'] } } } },
    },
    ...FAKE_STANDARD_EVENTS,
    eventNameProblem: (name) => (/^[a-z]+$/.test(name) ? undefined : \`"\${name}" must be lowercase letters\`),
    consentSignals(e, _d, event) {
      if (event.consent?.ads !== 'granted') e['limited'] = true;
      return undefined;
    },
    shape: (mapped) => ({ name: mapped.event, ...mapped.payload }),
    check: () => [],
    request: (events, ctx) => {
      const url = \`\${baseUrl(ctx.destination, 'https://fake.example')}/\${configText(ctx.destination, 'account_id')}\`;
      return { method: 'POST', url, redactedUrl: url, headers: {}, body: JSON.stringify(events) };
    },
    maxEvents: 10,
  },
  responses: { network: networkReason, retryStatus: throttledOrServerError, retried: httpReason, refused: httpReason },
  erasure: {
    baseUrl: 'https://fakeads.googleapis.com',
    auth: { kind: 'google_oauth', scope: 'https://www.googleapis.com/auth/fake' },
    identifiers: ['user_id'],
    requests: (d, person) =>
      person.userIds.map((userId) => ({
        platform: d.type,
        target: d.id,
        request: {
          method: 'POST',
          url: \`https://fakeads.googleapis.com/v1/accounts/\${configText(d, 'account_id')}:erase\`,
          body: { userId },
          auth: { kind: 'google_oauth', scope: 'https://www.googleapis.com/auth/fake' },
          timeoutMs: 1000,
        },
        asks: 'user id deletion',
        receipt: 'id',
      })),
  },
});
`,
    };
    /** The one line in the table (and its import), the creator's list, and the settings type. */
    const EDITS: readonly (readonly [file: string, after: string, insert: string])[] = [
      [
        'core/platforms/platforms.ts',
        "import { GA4_PLATFORM } from './ga4/index.ts';",
        "import { FAKE_PLATFORM } from './fake/index.ts';",
      ],
      ['core/platforms/platforms.ts', '  webhook: WEBHOOK_PLATFORM,', '  fake_ads: FAKE_PLATFORM,'],
      // Its facts also go in the browser-safe list of facts.
      [
        'core/platforms/facts.ts',
        "import { GA4_FACTS } from './ga4/facts.ts';",
        "import { FAKE_FACTS } from './fake/facts.ts';",
      ],
      ['core/platforms/facts.ts', '  webhook: WEBHOOK_FACTS,', '  fake_ads: FAKE_FACTS,'],
      ['schemas/settings.ts', "  Type.Literal('webhook'),", "  Type.Literal('fake_ads'),"],
    ];
    /** The consumers outside core/ and schemas/ the probe loads. */
    const CONSUMERS = [
      'gateway/id-cookies.ts',
      'studio/web/common.ts',
      'studio/web/creator-consent.ts',
      'studio/web/creator-platforms.ts',
      'scripts/docs-platforms.ts',
    ];
    const PROBE = `
import { requiredConsent } from './core/decision/decision.ts';
import { driverFor } from './core/platforms/drivers.ts';
import { DEFAULT_MAPPINGS, ENVELOPES, isMappedType, MAPPED_TYPES } from './core/platforms/mappings.ts';
import { DESTINATION_REQUIREMENTS, DEFAULT_CONSENT } from './core/platforms/requirements.ts';
import { PLATFORM_TYPES, STANDARD_EVENTS, VALUE_TARGETS } from './core/platforms/standard-events.ts';
import { plan } from './core/plan.ts';
import { checkSettings } from './core/settings.ts';
import { apiCalls } from './core/access/needs.ts';
import { attribution } from './core/enrich/attribution.ts';
import { CLICK_IDS, PAGE_COOKIES } from './core/platforms/facts.ts';
import { TCF_VENDORS } from './core/platforms/requirements.ts';
import { idCookies } from './gateway/id-cookies.ts';
import { apiVersionTable, countsTable, factsTable, platformTable } from './scripts/docs-platforms.ts';
import { consentWarning } from './studio/web/creator-consent.ts';
import { readFileSync } from 'node:fs';

// A DOM just large enough for the creator's step 3 to render its controls into.
const element = (tag) => {
  const e = { tag, attrs: {}, children: [] };
  e.setAttribute = (k, v) => { e.attrs[k] = v; };
  e.append = (c) => { e.children.push(c); };
  e.replaceChildren = (...c) => { e.children = c; };
  return e;
};
const controls = element('div');
globalThis.document = { createElement: element, getElementById: (id) => (id === 'platform-controls' ? controls : null) };
const { PLATFORM_CONTROL_IDS, renderPlatformControls } = await import('./studio/web/creator-platforms.ts');
renderPlatformControls();
const textOf = (e) => (typeof e === 'string' ? e : e.children.map(textOf).join(''));

const base = { name: 'fake', project: 'fake-project', region: 'europe-west1' };
const destination = { id: 'fake', type: 'fake_ads', config: { account_id: 'A1' }, secrets: { api_key: 'FAKE_KEY' } };
const event = {
  event_name: 'purchase', event_id: 'e1', event_time: '2025-01-01T00:00:00.000Z',
  received_at: '2025-01-01T00:00:01.000Z', event_data: { value: '12.5' }, consent: { ads: 'denied' },
};
const good = checkSettings({ ...base, destinations: [destination] });
const bad = checkSettings({ ...base, destinations: [{ id: 'fake', type: 'fake_ads', mappings: { quote: { event: 'Quote!' } } }] });
const driver = driverFor('fake_ads');
const cookiesFor = (destinations) =>
  idCookies(
    { ...base, destinations },
    { host: 'shop.example', plainLoopback: false, cookie: undefined },
    [{ data: Buffer.from(JSON.stringify({ ...event, consent: { analytics: 'granted', ads: 'granted' }, campaign: { fakeclid: 'C1' } })), attributes: {} }],
    1700000000000,
  ).filter((c) => c.startsWith('_fake='));
const landing = attribution({ ...event, page: { url: 'https://shop.example/?FakeClid=C9' } }, { referrers: {}, internalHosts: [] });
const docs = readFileSync('platforms.md', 'utf8') + '\\n## 14. Fake Ads API\\n';
const rowOf = (table) => table.split('\\n').filter((l) => l.startsWith('| \`fake_ads\`'));
const prepared = driver.prepare(event, { destination, secrets: { api_key: 'k' }, now: new Date() });
const batch = driver.prepareBatch([event, { ...event, event_id: 'e2' }], { destination, secrets: { api_key: 'k' }, now: new Date() });
console.log(JSON.stringify({
  requirements: DESTINATION_REQUIREMENTS.fake_ads,
  consent: DEFAULT_CONSENT.fake_ads,
  requiredConsent: requiredConsent(destination),
  planConsent: good.ok ? plan(good.settings).destinations[0].consent : good.errors,
  requiredSecrets: driver.requiredSecrets,
  mapped: isMappedType('fake_ads') && MAPPED_TYPES.includes('fake_ads'),
  defaultEvent: DEFAULT_MAPPINGS.fake_ads.purchase.event,
  envelope: ENVELOPES.fake_ads,
  standardEvents: PLATFORM_TYPES.includes('fake_ads') && STANDARD_EVENTS.fake_ads,
  valueTargets: VALUE_TARGETS.fake_ads,
  settingsErrors: bad.ok ? [] : bad.errors.map((e) => e.field + ': ' + e.description),
  request: prepared.ok ? { url: prepared.request.url, body: JSON.parse(prepared.request.body) } : prepared.reason,
  batch: batch.requests.map((r) => r.eventIds),
  step3: controls.children.filter((c) => c.attrs.for === 'platform-fake_ads' || c.attrs.id === 'platform-fake_ads').map((c) => ({ tag: c.tag, text: textOf(c), ...c.attrs })),
  step3Listened: PLATFORM_CONTROL_IDS.includes('platform-fake_ads'),
  consentWarning: consentWarning(['fake_ads'], () => false),
  cookies: cookiesFor([destination]),
  cookiesWithoutDestination: cookiesFor([]),
  clickId: { campaign: landing.campaign, channel: landing.channel, tag: CLICK_IDS.some((c) => c.param === 'fakeclid') },
  pageCookie: PAGE_COOKIES.some((c) => c.cookie === '_fkp' && c.field === 'fkp'),
  tcfVendor: TCF_VENDORS.fake_ads,
  accessCalls: good.ok ? apiCalls(plan(good.settings), good.settings).filter((c) => c.host.startsWith('fakeads')) : good.errors,
  docs: [...rowOf(platformTable(docs)), ...rowOf(apiVersionTable(true)), ...rowOf(factsTable()), ...rowOf(countsTable())],
  answer: driver.interpret({ kind: 'response', status: 503, headers: {}, body: 'busy' }, { destination, secrets: {}, now: new Date() }),
}));
`;

    it('touches its folder and one line in each of three lists, the files docs/architecture.md names', () => {
      assert.ok(Object.keys(FILES).every((f) => f.startsWith('core/platforms/fake/')));
      const outside = [...new Set(EDITS.map(([file]) => file))].sort();
      assert.deepEqual(outside, [
        'core/platforms/facts.ts',
        'core/platforms/platforms.ts',
        'schemas/settings.ts',
      ]);
      // One line each (the two lists also take the line's import).
      for (const file of outside) {
        const lines = EDITS.filter(([f, , insert]) => f === file && !insert.startsWith('import ')).length;
        assert.equal(lines, 1, file);
      }
      const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
      const recipe = doc.slice(doc.indexOf('**Adding a platform**'), doc.indexOf('## 3. The event contract'));
      for (const file of outside) assert.ok(recipe.includes(`\`${file}\``), `the recipe names ${file}`);
      assert.match(recipe, /one line each in three lists/);
    });

    it('shows up in every derived table, the settings check, the plan, the decision layer and its driver', () => {
      dir = claimStableDir('eventbus-platform-folders');
      for (const d of ['core', 'schemas']) cpSync(join(root, d), join(dir, d), { recursive: true });
      // The consumers outside core/: the gateway's cookies, the creator's step 3 and warning, the docs.
      for (const f of CONSUMERS) cpSync(join(root, f), join(dir, f));
      cpSync(join(root, 'docs/platforms.md'), join(dir, 'platforms.md'));
      cpSync(join(root, 'package.json'), join(dir, 'package.json'));
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      for (const [file, text] of Object.entries(FILES)) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), text);
      }
      for (const [file, after, insert] of EDITS) {
        const text = readFileSync(join(dir, file), 'utf8');
        assert.ok(text.includes(after), `${file} still has the line "${after}" to add after`);
        writeFileSync(join(dir, file), text.replace(after, `${after}\n${insert}`));
      }
      writeFileSync(join(dir, 'probe.ts'), PROBE);
      const run = spawnSync(process.execPath, ['probe.ts'], { cwd: dir, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const got = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.deepEqual(got['requirements'], {
        config: ['account_id'],
        optionalConfig: [],
        secrets: ['api_key'],
        baseUrl: false,
        testEventCode: false,
      });
      assert.deepEqual(got['consent'], ['ads']);
      assert.deepEqual(got['requiredConsent'], ['ads']);
      assert.deepEqual(got['planConsent'], ['ads']);
      assert.deepEqual(got['requiredSecrets'], ['api_key']);
      assert.equal(got['mapped'], true);
      assert.equal(got['defaultEvent'], 'buy');
      assert.deepEqual(got['envelope'], { id: 'event_id' });
      assert.deepEqual(got['standardEvents'], ['buy', 'lead']);
      assert.deepEqual(got['valueTargets'], { value: 'amount', currency: 'money' });
      // The settings check reads its requirements and its event-name rule.
      assert.deepEqual(got['settingsErrors'], [
        'destinations[0].config.account_id: is required for fake_ads',
        'destinations[0].secrets.api_key: is required for fake_ads (the name of the secret holding it)',
        'destinations[0].mappings.quote.event: "Quote!" must be lowercase letters',
      ]);
      // Its driver maps with its own mapping, adds its consent signal and builds its request.
      assert.deepEqual(got['request'], {
        url: 'https://fake.example/A1',
        body: [{ name: 'buy', id: 'e1', amount: 12.5, limited: true }],
      });
      // It takes many events per request, so its driver batches them.
      assert.deepEqual(got['batch'], [['e1', 'e2']]);
      assert.deepEqual(got['answer'], { status: 'retry', reason: 'HTTP 503: busy', httpStatus: 503 });
      // The creator's step 3: its control, as its facts declare it, listened to.
      assert.deepEqual(got['step3'], [
        { tag: 'label', text: 'Fake conversion id', for: 'platform-fake_ads' },
        {
          tag: 'input',
          text: '',
          id: 'platform-fake_ads',
          class: 'code',
          type: 'text',
          pattern: '[0-9]+',
          placeholder: 'not sent',
          spellcheck: 'false',
          inputmode: 'numeric',
        },
      ]);
      assert.equal(got['step3Listened'], true);
      // The consent warning names it with the purpose it declares.
      assert.equal(
        got['consentWarning'],
        'Fake receives an event only with consent to ads: say where consent to ads comes from above, or nothing is sent there.',
      );
      // The gateway sets its cookie, only with a destination of it (as it declares).
      assert.deepEqual(got['cookies'], [
        '_fake=fk.1.1700000000000.C1; Path=/; Max-Age=34560000; SameSite=Lax; Secure',
      ]);
      assert.deepEqual(got['cookiesWithoutDestination'], []);
      // Enrichment reads its click id from a landing URL, as a social click; the tag is bundled with it.
      assert.deepEqual(got['clickId'], { campaign: { fakeclid: 'C9' }, channel: 'social', tag: true });
      // The tag is bundled with the cookie its pixel sets.
      assert.equal(got['pageCookie'], true);
      assert.equal(got['tcfVendor'], 4242);
      // Its erasure slot's API is among the calls whose service the project enables.
      assert.deepEqual(got['accessCalls'], [
        {
          who: 'schedule',
          host: 'fakeads.googleapis.com',
          feature: 'an erasure’s Fake deletion',
          code: 'functions/schedule/erasure-platforms.ts',
        },
      ]);
      // docs/platforms.md's generated tables each get its row.
      assert.deepEqual(got['docs'], [
        '| `fake_ads` | [Fake Ads API](#14-fake-ads-api) | mapped, 10 per request | `account_id` | — | `api_key` | `ads` | no | no |',
        '| `fake_ads` | `v1` | none published | path | — | [fake.example](https://fake.example/versions) |',
        '| `fake_ads` | 4242 | `fakeclid` (social) | `_fake` (ads), with a destination | `_fkp` | id: Fake conversion id | by user_id |',
        '| `fake_ads` | — fake counts nothing | [fake.example](https://fake.example/counts) |',
      ]);
    });
  });
});
