/**
 * forward-catalog's bundle (issue #65; scripts/segment-bundle.ts): it carries the Segment
 * destination folders its settings use and no other, loads them by folder name at run time as
 * the runtime does, shares one installed actions-core with them, and starts under the real
 * functions-framework CLI; `--settings` picks the folders from settings files.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CATALOG_ENTRY_POINT } from '../../core/deploy/catalog-function.ts';
import { parseSettings } from '../../core/settings.ts';
import {
  type BundleSpec,
  buildBundles,
  catalogBundle,
  catalogBundleFor,
  REPO_ROOT,
} from '../../scripts/build-functions.ts';
import { settingsText } from './support.ts';
import { FRAMEWORK_CLI, freePort, linkFramework, startAndProbe } from './support-bundles.ts';

/** The destination folders code comes from, as esbuild's module comments name them. */
const foldersIn = (code: string) =>
  [
    ...new Set(
      [
        ...code.matchAll(
          /^\/\/ (?:\S*\/)?node_modules\/@segment\/action-destinations\/dist\/destinations\/([^/]+)\//gm,
        ),
      ].map((m) => m[1]),
    ),
  ].sort();

/** The folders a built forward-catalog carries: its stand-in package's, each checked to hold only its own. */
function carried(dir: string): string[] {
  const root = join(dir, 'segment-destinations', 'dist', 'destinations');
  const slugs = readdirSync(root).sort();
  for (const slug of slugs)
    assert.deepEqual(foldersIn(readFileSync(join(root, slug, 'index.js'), 'utf8')), [slug]);
  assert.deepEqual(
    foldersIn(readFileSync(join(dir, 'index.js'), 'utf8')),
    [],
    'the function’s own file holds none',
  );
  return slugs;
}

/** Under the bundle's own name, with the test's entry: the runtime's way of loading, nothing else. */
const STAND_IN: BundleSpec = {
  ...catalogBundle(['slack', 'klaviyo']),
  entry: 'test/fixtures/functions/catalog/index.ts',
};

describe('bundles: forward-catalog carries only the destinations its settings use', function () {
  this.timeout(120_000);
  let out: string;
  before(() => {
    out = mkdtempSync(join(tmpdir(), 'eventbus-catalog-bundle-'));
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('bundles the used folders, loads them by name at run time through one actions-core, and no other resolves', async () => {
    const built = (await buildBundles({ specs: [STAND_IN], outDir: out }))['forward-catalog']!;
    assert.deepEqual(built.segmentDestinations, ['klaviyo', 'slack']);
    const dir = resolve(REPO_ROOT, built.dir);
    assert.deepEqual(carried(dir), ['klaviyo', 'slack']);
    for (const file of ['index.js', 'segment-destinations/dist/destinations/klaviyo/index.js'])
      assert.doesNotMatch(
        readFileSync(join(dir, file), 'utf8'),
        /^\/\/ (?:\S*\/)?node_modules\/@segment\/actions-core\//m,
        `${file}: actions-core is installed, not inlined`,
      );
    // Small beside the 31 MB package: two destinations and what they use (actions-core aside).
    assert.ok(built.bytes < 1.5 * 2 ** 20, `${built.bytes} bytes`);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    assert.equal(pkg.dependencies['@segment/action-destinations'], 'file:./segment-destinations');
    assert.equal(pkg.dependencies['@segment/actions-core'], '3.170.0');
    linkFramework(dir);
    const port = await freePort();
    const running = await startAndProbe(
      [FRAMEWORK_CLI, '--target=catalog', '--signature-type=http', `--port=${port}`],
      { cwd: dir, env: { NODE_ENV: 'production' }, port, tcp: true },
    );
    try {
      const klaviyo = await fetch(`${running.url}/?destination=klaviyo`);
      assert.equal(klaviyo.status, 200, running.output());
      const body = (await klaviyo.json()) as { name: string; actions: string[]; core: string };
      assert.equal(body.name, 'Klaviyo (Actions)');
      assert.ok(body.actions.includes('trackEvent'), body.actions.join());
      assert.equal(body.core, 'function');
      const braze = await fetch(`${running.url}/?destination=braze`);
      assert.equal(braze.status, 404, 'a folder the settings do not use is not in the bundle');
      assert.deepEqual(await braze.json(), { code: 'MODULE_NOT_FOUND' });
    } finally {
      await running.stop();
    }
  });

  it('refuses Segment’s packages in any other function, and a folder its settings do not use', async () => {
    // The stand-in entry reaches actions-core only at run time: give it a literal import instead.
    const file = join(out, 'literal.ts');
    const literal = relative(REPO_ROOT, file);
    writeFileSync(
      file,
      "import '@segment/actions-core';\nimport '@segment/action-destinations/dist/destinations/braze';\n",
    );
    await assert.rejects(
      buildBundles({ specs: [{ name: 'forward', entry: literal, kind: 'function' }], outDir: out }),
      /forward imports @segment\/actions-core: Segment's runtime belongs in forward-catalog only/,
    );
    await assert.rejects(
      buildBundles({ specs: [{ ...STAND_IN, entry: literal }], outDir: out }),
      /forward-catalog imports @segment\/action-destinations\/dist\/destinations\/braze, which its settings do not use/,
    );
  });

  it('takes the folders from settings files (`npm run build:functions -- --settings <file>`), none without a catalogue destination', () => {
    const file = join(out, 'catalog.yaml');
    writeFileSync(
      file,
      `${settingsText('test/fixtures/settings/valid/minimal.yaml')}
destinations:
  - id: klaviyo
    type: segment_action
    destination: klaviyo
    secrets: { api_key: klaviyo-private-key }
    actions: [{ action: trackEvent, mapping: { profile: { email: { "@path": "$.context.traits.email" } } } }]
  - id: slack
    type: segment_action
    destination: slack
    enabled: false
    actions: [{ action: postToChannel }]
`,
    );
    assert.ok(parseSettings(readFileSync(file, 'utf8')).ok, 'the settings load');
    assert.deepEqual(
      catalogBundleFor([file])?.segmentDestinations,
      ['klaviyo'],
      'a disabled one is not carried',
    );
    assert.equal(catalogBundleFor([resolve(REPO_ROOT, 'environments/example.yaml')]), undefined);
  });

  const runtime = existsSync(join(REPO_ROOT, 'functions/forward-catalog/index.ts'));
  (runtime ? it : it.skip)(
    'builds functions/forward-catalog and it answers once started as in production',
    async () => {
      const local = parseSettings(settingsText('environments/local.yaml'));
      assert.ok(local.ok);
      const built = (await buildBundles({ specs: [catalogBundle(['klaviyo'])], outDir: out }))[
        'forward-catalog'
      ]!;
      const dir = resolve(REPO_ROOT, built.dir);
      assert.deepEqual(carried(dir), ['klaviyo']);
      linkFramework(dir);
      const port = await freePort();
      const running = await startAndProbe(
        [FRAMEWORK_CLI, `--target=${CATALOG_ENTRY_POINT}`, '--signature-type=http', `--port=${port}`],
        {
          cwd: dir,
          env: {
            NODE_ENV: 'production',
            EVENTBUS_SETTINGS: JSON.stringify(local.settings),
            GOOGLE_CLOUD_PROJECT: local.settings.project,
            METADATA_SERVER_DETECTION: 'none',
            PUBSUB_EMULATOR_HOST: '127.0.0.1:9',
            BIGQUERY_EMULATOR_HOST: 'http://127.0.0.1:9',
            STORAGE_EMULATOR_HOST: 'http://127.0.0.1:9',
          },
          port,
          tcp: true,
        },
      );
      try {
        const res = await fetch(`${running.url}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        const body = await res.text();
        assert.doesNotMatch(body, /is not defined/, 'the target is registered in the framework the CLI runs');
        assert.ok(res.status >= 200 && res.status < 600, running.output());
      } finally {
        await running.stop();
      }
    },
  );
});
