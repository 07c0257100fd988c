/**
 * What the studio's admin API refuses at apply (issue 33), through HTTP on a registry bucket in
 * the Cloud Storage emulator and a warehouse in the BigQuery emulator: names of the warehouse's
 * own tables, views and topics, a once-per period of 0, internal topics as targets, oversized
 * RE2 patterns, and SQL that is not a single SELECT of this project, each answered 400 naming the
 * field, at a dry run as at an apply, with nothing written. Also the views adapter's own guard.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import { resourceSqlViolations, selectProblem } from '../../adapters/user-sql.ts';
import { ensureDefinitionView, ensureView } from '../../adapters/views.ts';
import { plan } from '../../core/plan.ts';
import { definitionView, tableRef } from '../../core/warehouse/warehouse.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';

const TOKEN = 'resource-checks-admin-token-0123456789';

interface Refusal {
  error: {
    code: number;
    message: string;
    details?: { fieldViolations?: { field: string; description: string }[] }[];
  };
}

describe('studio: what apply refuses (issue 33)', function () {
  this.timeout(60_000);
  const settings = testSettings({
    experimental: { rules: true },
    connections: [{ id: 'crm', type: 'webhook', url: 'https://crm.example/hook' }],
  });
  const p = plan(settings);
  const fx = emulatorWithFreshBuckets('resource-checks');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>>;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'resource-checks-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project: settings.project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(settings.project, emu.url);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      connections: settings.connections ?? [],
      checkSql: (items) => resourceSqlViolations(bigquery, p, items),
    });
  });
  afterEach(() => studio.close());

  /** Applies documents (or dry-runs them); the status and the field violations, as field → description. */
  async function apply(documents: unknown[], dryRun = false) {
    const res = await fetch(`${studio.url}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents, dryRun }),
    });
    const body = (await res.json()) as Refusal;
    const violations = new Map(
      (body.error?.details ?? [])
        .flatMap((d) => d.fieldViolations ?? [])
        .map((v) => [v.field, v.description]),
    );
    return { status: res.status, violations };
  }

  const definition = (name: string) => ({
    kind: 'EventDefinition',
    name,
    spec: { fields: [{ name: 'amount', type: 'number' }] },
  });
  const rule = (spec: Record<string, unknown>) => ({
    kind: 'Rule',
    name: 'big-orders',
    spec: {
      trigger: { event: { names: ['purchase'] } },
      actions: [{ webhook: { connection: 'crm' } }],
      ...spec,
    },
  });
  const sync = (spec: Record<string, unknown>) => ({
    kind: 'Sync',
    name: 'customers',
    spec: {
      model: 'SELECT user_id FROM events.events_dedup',
      primary_key: ['user_id'],
      mode: 'upsert',
      schedule: { every: '1h' },
      destination: { webhook: { connection: 'crm' } },
      ...spec,
    },
  });

  it("refuses a definition named after the warehouse's own tables and views, at dry run and apply", async () => {
    for (const name of [
      'identities',
      'events_dedup',
      'events',
      'deliveries',
      'invalid_events',
      'action_runs',
      'sync_runs',
    ]) {
      for (const dryRun of [true, false]) {
        const r = await apply([definition(name)], dryRun);
        assert.equal(r.status, 400, `${name} dryRun=${dryRun}`);
        assert.match(
          r.violations.get('documents[0].name') ?? '',
          new RegExp(`reserved: the warehouse's own table or view \`${name}\``),
        );
      }
    }
    // An older major's view name (`<name>_v<N>`) and internal topics are reserved too.
    assert.match(
      (await apply([definition('quote_v1')], true)).violations.get('documents[0].name') ?? '',
      /_v<N>/,
    );
    assert.match(
      (await apply([{ kind: 'Query', name: 'runs', spec: { sql: 'SELECT 1' } }])).violations.get(
        'documents[0].name',
      ) ?? '',
      /internal topic runs/,
    );
    assert.match(
      (await apply([{ kind: 'Query', name: 'identities', spec: { sql: 'SELECT 1' } }])).violations.get(
        'documents[0].name',
      ) ?? '',
      /reserved/,
    );
    assert.deepEqual((await fx.bucket.getFiles())[0], [], 'nothing written');
    assert.equal((await apply([definition('quote_asked')])).status, 200);
  });

  it('refuses a once-per period of 0m (and other unusable periods) naming the path', async () => {
    for (const period of ['0m', '999999d', '-1d', '1.5h']) {
      const r = await apply([rule({ once_per: { key: 'user_id', period } })]);
      assert.equal(r.status, 400, period);
      assert.ok(r.violations.has('documents[0].spec.once_per.period'), `${period}: ${[...r.violations]}`);
    }
    assert.equal((await apply([rule({ once_per: { key: 'user_id', period: '1d' } })])).status, 200);
  });

  it('refuses internal topics as rule and sync targets', async () => {
    for (const topic of ['runs', 'deliveries', 'ticks', 'deliveries-meta-dead-letter']) {
      const r = await apply([
        rule({ actions: [{ publish: { event_name: 'big_spender', topic } }] }),
        sync({ destination: { topic: { event_name: 'customer_synced', topic } } }),
      ]);
      assert.equal(r.status, 400);
      assert.match(r.violations.get('documents[0].spec.actions[0].publish.topic') ?? '', /internal topic/);
      assert.match(r.violations.get('documents[1].spec.destination.topic.topic') ?? '', /internal topic/);
    }
  });

  /** Applies a rule whose criteria nest `depth` levels (written by hand: JSON.stringify overflows). */
  const applyNested = async (depth: number): Promise<{ status: number; body: Refusal }> => {
    const criterion = `${'{"all":['.repeat(depth)}{"field":"value","op":"exists"}${']}'.repeat(depth)}`;
    const res = await fetch(`${studio.url}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: `{"documents":[{"kind":"Rule","name":"deep","spec":{"trigger":{"event":{"all":[${criterion}]}},"actions":[{"webhook":{"connection":"crm"}}]}}]}`,
    });
    return { status: res.status, body: (await res.json()) as Refusal };
  };

  it('refuses criteria nested 20,000 deep with a 400, not a stack overflow', async () => {
    const { status, body } = await applyNested(20_000);
    assert.equal(status, 400);
    // The studio's body reader refuses it before parsing (JSON nested past 64 levels), as the
    // gateway does; the resource check (48 levels, next test) never sees it.
    assert.match(body.error.message, /Nesting is deeper than 64 levels/);
  });

  it('refuses a document nested deeper than 48 levels with a violation naming it', async () => {
    // 24 criteria deep: past the resource check's 48 levels, within the body reader's 64.
    const { status, body } = await applyNested(24);
    assert.equal(status, 400);
    assert.deepEqual(
      body.error.details?.flatMap((d) => d.fieldViolations ?? []),
      [{ field: 'documents[0]', description: 'nests objects and lists more than 48 levels deep' }],
    );
  });

  it('refuses an RE2 pattern over 16 KiB', async () => {
    const pattern = `^(${Array.from({ length: 4000 }, (_, i) => `sku${i}`).join('|')})$`;
    const r = await apply([
      rule({
        trigger: {
          event: { names: ['purchase'], all: [{ field: 'content_ids', op: 'matches', value: pattern }] },
        },
      }),
    ]);
    assert.equal(r.status, 400);
    assert.match(
      r.violations.get('documents[0].spec.trigger.event.all[0].value') ?? '',
      /longer than 16 KiB/,
    );
  });

  it('dry-runs the SQL of scheduled rules, syncs and queries at apply: one SELECT of this project only', async () => {
    const cases: [unknown, string][] = [
      [
        { kind: 'Query', name: 'wipe', spec: { sql: 'DELETE FROM events WHERE TRUE' } },
        'documents[0].spec.sql',
      ],
      [{ kind: 'Query', name: 'two', spec: { sql: 'SELECT 1; SELECT 2' } }, 'documents[0].spec.sql'],
      [
        { kind: 'Query', name: 'ddl', spec: { sql: 'CREATE TABLE events.x AS SELECT 1 AS a' } },
        'documents[0].spec.sql',
      ],
      [
        { kind: 'Query', name: 'elsewhere', spec: { sql: 'SELECT * FROM `other-project.secrets.keys`' } },
        'documents[0].spec.sql',
      ],
      [sync({ model: 'SELECT user_id FROM events.no_such_table' }), 'documents[0].spec.model'],
      [
        rule({ trigger: { schedule: { every: '1h' }, sql: 'UPDATE events SET topic = NULL WHERE TRUE' } }),
        'documents[0].spec.trigger.sql',
      ],
    ];
    for (const [doc, field] of cases) {
      for (const dryRun of [true, false]) {
        const r = await apply([doc], dryRun);
        assert.equal(r.status, 400, JSON.stringify(doc));
        assert.ok(r.violations.has(field), `${JSON.stringify(doc)}: ${[...r.violations]}`);
      }
    }
    assert.deepEqual((await fx.bucket.getFiles())[0], [], 'nothing written');
    const ok = await apply([
      {
        kind: 'Query',
        name: 'daily',
        spec: { sql: 'SELECT event_name, COUNT(*) AS n FROM events_dedup GROUP BY 1' },
      },
      sync({}),
    ]);
    assert.equal(ok.status, 200, [...ok.violations].join('\n'));
  });

  it("refuses a SELECT BigQuery can run that reads another project's table (its dry run names them)", async () => {
    // The emulator holds one project; BigQuery's dry run lists the tables a query reads.
    const answer = (projectId: string) =>
      ({
        projectId: 'storage-test',
        createQueryJob: async () => [
          {
            metadata: {
              statistics: {
                query: {
                  statementType: 'SELECT',
                  referencedTables: [{ projectId, datasetId: 'crm', tableId: 'customers' }],
                },
              },
            },
          },
        ],
      }) as unknown as BigQuery;
    assert.equal(
      await selectProblem(answer('other-project'), { query: 'SELECT * FROM `other-project.crm.customers`' }),
      'reads other-project.crm.customers: only tables of storage-test may be read',
    );
    assert.equal(
      await selectProblem(answer('storage-test'), { query: 'SELECT * FROM crm.customers' }),
      undefined,
    );
  });

  it("the views adapter never replaces a built-in view or a table with a definition's view", async () => {
    const dataset = bigquery.dataset(p.dataset);
    const source = tableRef(settings.project, p.dataset, 'events_dedup');
    for (const name of ['identities', 'events_dedup', 'purchase']) {
      const v = definitionView(
        source,
        { name, version: '1.0', fields: [{ name: 'amount', type: 'number' }] },
        true,
      );
      await assert.rejects(ensureDefinitionView(dataset, v), { name: 'ViewRefused' });
    }
    const onTable = definitionView(
      source,
      { name: 'events', version: '1.0', fields: [{ name: 'amount', type: 'number' }] },
      true,
    );
    await assert.rejects(ensureView(dataset, onTable), /events is a table, not a view/);
    const [identities] = await dataset.table('identities').getMetadata();
    assert.match(
      String((identities as { view?: { query?: string } }).view?.query),
      /GROUP BY user_id, anonymous_id/,
    );
  });
});
