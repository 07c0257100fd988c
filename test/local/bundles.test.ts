/**
 * The deployables run from their bundles (local/bundles.ts): a kept bundle is used while every
 * file its build read has the same bytes, and not once one changed or went; the services run the
 * bundle's folder when the context has it, and their sources otherwise.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type BundleRecord,
  bundleCache,
  inputsKey,
  keptBundle,
  LOCAL_BUNDLES,
  localBundles,
} from '../../local/bundles.ts';
import {
  DEFAULT_PORTS,
  functionService,
  gateway,
  type LocalContext,
  storeFunction,
  studio,
} from '../../local/services.ts';
import { readSettingsFile } from '../../local/settings-file.ts';
import { BUNDLES } from '../../scripts/build-functions.ts';

const repo = resolve(import.meta.dirname, '../..');

describe('local bundles: kept by the bytes of what they were built from', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'eventbus-bundles-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'src', 'b.ts'), 'export const b = 2;\n');
    // What a build leaves: the bundle's folder under its key, and the record naming its inputs.
    const inputs = ['src/a.ts', 'src/b.ts'];
    const key = inputsKey(root, inputs);
    mkdirSync(join(bundleCache(root), 'store', key), { recursive: true });
    writeFileSync(
      join(bundleCache(root), 'store', 'record.json'),
      JSON.stringify({ key, inputs } satisfies BundleRecord),
    );
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('uses the kept bundle while its inputs are unchanged, without building', async () => {
    const kept = keptBundle(root, 'store');
    assert.ok(kept?.startsWith(join(bundleCache(root), 'store')));
    const said: string[] = [];
    assert.deepEqual(await localBundles(root, ['store'], (l) => said.push(l)), { store: kept });
    assert.deepEqual(said, []);
  });

  it('does not use it once an input has other bytes, or is gone', () => {
    writeFileSync(join(root, 'src', 'b.ts'), 'export const b = 3;\n');
    assert.equal(keptBundle(root, 'store'), undefined);
    writeFileSync(join(root, 'src', 'b.ts'), 'export const b = 2;\n');
    assert.ok(keptBundle(root, 'store'), 'the same bytes again: the same key');
    rmSync(join(root, 'src', 'a.ts'));
    assert.equal(keptBundle(root, 'store'), undefined);
  });

  it('does not use a kept folder that was removed', () => {
    const kept = keptBundle(root, 'store');
    assert.ok(kept);
    rmSync(kept, { recursive: true });
    assert.equal(keptBundle(root, 'store'), undefined);
  });

  it('keeps each checkout apart, and knows no bundle it has no record of', () => {
    assert.notEqual(bundleCache(root), bundleCache(repo));
    assert.equal(keptBundle(root, 'gateway'), undefined);
  });

  it('names only deployables the deploy builds', () => {
    const built = new Set(BUNDLES.map((b) => b.name));
    for (const name of LOCAL_BUNDLES) assert.ok(built.has(name), name);
  });
});

describe('local services: run from their bundles when the context has them', () => {
  const ctx: LocalContext = {
    root: repo,
    dataDir: '/tmp/data',
    logDir: '/tmp/logs',
    ports: DEFAULT_PORTS,
    settings: readSettingsFile(join(repo, 'environments/local.yaml')),
    project: 'local-project',
    node: process.execPath,
  };
  const bundles = { store: '/kept/store', gateway: '/kept/gateway', studio: '/kept/studio' };

  it('serves a function from its bundle folder, the gateway and the studio from main.js', () => {
    const withBundles = { ...ctx, bundles };
    const store = storeFunction(withBundles);
    assert.equal(store.bundle, 'store');
    assert.equal(store.args[store.args.indexOf('--source') + 1], '/kept/store');
    assert.deepEqual(gateway(withBundles).args, ['/kept/gateway/main.js']);
    assert.deepEqual(studio(withBundles).args, ['/kept/studio/main.js']);
  });

  it('runs the sources without them, and a source given as it is', () => {
    const store = storeFunction(ctx);
    assert.equal(store.args[store.args.indexOf('--source') + 1], join(repo, 'functions/store/index.ts'));
    assert.deepEqual(gateway(ctx).args, [join(repo, 'gateway/main.ts')]);
    const own = functionService({ ...ctx, bundles }, 'store', '/tests/index.ts');
    assert.equal(own.bundle, undefined);
    assert.equal(own.args[own.args.indexOf('--source') + 1], '/tests/index.ts');
  });
});
