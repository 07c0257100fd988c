/**
 * local/bigtable.ts: the Bigtable twin runs only when the settings keep the claims in Bigtable,
 * the workloads are told where (each on its own port with IAM on), and the claims table, its
 * family and GC rule are provisioned through the admin API, again and again without change. The
 * provisioning runs against the twin as its own process, and is checked with Google's client.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Bigtable } from '@google-cloud/bigtable';
import { WORKLOADS, type Workload, workloadMember } from '../../core/access/needs.ts';
import { plan } from '../../core/plan.ts';
import { checkSettings } from '../../core/settings.ts';
import { bigtableEmulator, localBigtable, provisionBigtableClaims } from '../../local/bigtable.ts';
import { DEFAULT_PORTS, type LocalContext, runtimeEnv } from '../../local/services.ts';
import { exited, launchEmulator } from '../support/emulator-process.ts';

process.env['METADATA_SERVER_DETECTION'] = 'none';

const root = resolve(import.meta.dirname, '../..');
const settingsOf = (store?: 'firestore' | 'bigtable') => {
  const checked = checkSettings({
    name: 'shop',
    project: 'shop-project',
    region: 'europe-west1',
    ...(store ? { claims: { store } } : {}),
  });
  assert.ok(checked.ok);
  return checked.settings;
};
const context = (extra: Partial<LocalContext> = {}): LocalContext => ({
  root,
  dataDir: '/tmp/d',
  logDir: '/tmp/l',
  ports: DEFAULT_PORTS,
  settings: settingsOf('bigtable'),
  project: 'shop-project',
  node: process.execPath,
  ...extra,
});

describe('local bigtable: when it runs and who is told', () => {
  it('has no ports, and the workloads no BIGTABLE_EMULATOR_HOST, unless the settings choose bigtable', async () => {
    for (const s of [settingsOf(), settingsOf('firestore')]) {
      assert.equal(await localBigtable(plan(s), true), undefined);
      assert.equal(runtimeEnv(context({ settings: s }), 'store')['BIGTABLE_EMULATOR_HOST'], undefined);
    }
  });

  it('with bigtable: a free port, one per workload with IAM on, each workload told its own', async () => {
    const bt = await localBigtable(plan(settingsOf('bigtable')), true);
    assert.ok(bt?.iamPorts);
    const ports = [bt.port, ...WORKLOADS.map((w) => bt.iamPorts?.[w] as number)];
    assert.equal(new Set(ports).size, ports.length, 'all distinct');
    // The other twins' workload ports, as localIam gives them (their values do not matter here).
    const other = { pubsub: 1, bigquery: 2, storage: 3, firestore: 4, 'secret-manager': 5, receiver: 6 };
    const iam = {
      file: '/tmp/d/iam/access.json',
      ports: Object.fromEntries(WORKLOADS.map((w) => [w, other])) as Record<Workload, typeof other>,
    };
    const ctx = context({ bigtable: bt, iam });
    assert.equal(runtimeEnv(ctx, 'forward')['BIGTABLE_EMULATOR_HOST'], `127.0.0.1:${bt.iamPorts.forward}`);
    assert.equal(runtimeEnv(ctx)['BIGTABLE_EMULATOR_HOST'], `127.0.0.1:${bt.port}`);
    const spec = bigtableEmulator(ctx, bt);
    assert.equal(spec.stage, 'emulator');
    assert.equal(spec.args[spec.args.indexOf('--data-dir') + 1], join('/tmp/d', 'bigtable'));
    assert.equal(spec.args[spec.args.indexOf('--iam') + 1], iam.file);
    assert.ok(spec.args.includes(`${workloadMember('store', 'shop-project')}=${bt.iamPorts.store}`));
    // IAM off: the owner's port only, no access file.
    const open = await localBigtable(plan(settingsOf('bigtable')), false);
    assert.ok(open);
    assert.equal(open.iamPorts, undefined);
    assert.ok(!bigtableEmulator(context({ bigtable: open }), open).args.includes('--iam'));
  });
});

describe('local bigtable: provisioning the claims table', function () {
  this.timeout(30_000);
  let dir: string;
  let child: ChildProcess;
  let host: string;
  let admin: Bigtable;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'local-bigtable-'));
    const launched = await launchEmulator('bigtable', dir, ['--fsync', 'none', '--gc-interval-ms', '0']);
    child = launched.child;
    host = new URL(launched.url).host;
    admin = new Bigtable({ projectId: 'shop-project', apiEndpoint: host, metricsEnabled: false });
  });
  after(async () => {
    await admin?.close();
    if (child) {
      child.kill('SIGTERM');
      await exited(child);
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const report = () => ({ created: [] as string[], updated: [] as string[], unchanged: [] as string[] });
  const maxAge = async (table: string) => {
    const [families] = await admin.instance('shop-claims').table(table).getFamilies();
    return families.map((f) => [
      f.id,
      Number((f.metadata?.gcRule as { maxAge?: { seconds?: number } })?.maxAge?.seconds),
    ]);
  };
  const bt = () =>
    plan(settingsOf('bigtable')).claims.bigtable as NonNullable<
      ReturnType<typeof plan>['claims']['bigtable']
    >;

  it('creates the table with its family and rule, then leaves it unchanged', async () => {
    const first = report();
    await provisionBigtableClaims(bt(), 'shop-project', host, first);
    assert.equal(first.created.length, 1, JSON.stringify(first));
    assert.deepEqual(await maxAge('claims'), [['c', 8 * 86_400]]);
    const again = report();
    await provisionBigtableClaims(bt(), 'shop-project', host, again);
    assert.deepEqual(again, { created: [], updated: [], unchanged: [again.unchanged[0]] });
    assert.match(again.unchanged[0] ?? '', /shop-claims\/claims/);
  });

  it('sets the rule again when it differs, and adds the family to a table without it', async () => {
    await admin
      .instance('shop-claims')
      .table('claims')
      .family('c')
      .setMetadata({ rule: { age: { seconds: 60 } } });
    const changed = report();
    await provisionBigtableClaims(bt(), 'shop-project', host, changed);
    assert.equal(changed.updated.length, 1, JSON.stringify(changed));
    assert.deepEqual(await maxAge('claims'), [['c', 8 * 86_400]]);

    await admin.instance('shop-claims').createTable('bare', { families: ['other'] });
    const bare = report();
    await provisionBigtableClaims({ ...bt(), table: 'bare' }, 'shop-project', host, bare);
    assert.equal(bare.created.length, 1, JSON.stringify(bare));
    assert.deepEqual(Object.fromEntries(await maxAge('bare'))['c'], 8 * 86_400);
  });
});
