/**
 * The console's SQL (`POST /v1/admin/sql`, and `eventbus sql` through the same runQuery) confined
 * to the environment (issue #61, Medium 2): over the BigQuery emulator holding the environment's
 * datasets, another dataset of its project and another project's table, a query reads the events
 * and ops datasets (tables, views, their INFORMATION_SCHEMA) and nothing else, each refusal a 400
 * naming what it would have read. And BigQuery's client errors (a typo'd table) come back as 400
 * with its message, only outages as 503 (the Low of the same issue).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { RegistryClient } from '../../adapters/registry.ts';
import { runQuery } from '../../cli/commands/sql.ts';
import { plan } from '../../core/plan.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { startStudio } from '../../studio/server.ts';
import { testSettings } from '../storage/support.ts';
import { adminCall } from '../support/admin-call.ts';
import { studioWarehouse } from '../support/studio-warehouse.ts';

const TOKEN = 'console-sql-scope-admin-token-0123456789';
const SECRET = 'victim@example.com';

describe('console SQL: confined to the environment’s own datasets', function () {
  this.timeout(60_000);
  const settings = testSettings();
  const p = plan(settings);
  const project = settings.project;
  const fx = emulatorWithFreshBuckets('console-sql-scope');
  let dir: string;
  let emu: BigQueryEmulator;
  let bigquery: BigQuery;
  let studio: Awaited<ReturnType<typeof startStudio>> | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-sql-scope-'));
    emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
    await provision(p, { project, bigquery: emu.url, functionUrl: () => '' });
    bigquery = emulatorBigQuery(project, emu.url);
    // Another dataset of the same project, and another project the account could read.
    const at = { location: p.location };
    await bigquery.createDataset('otherds', at);
    await bigquery.query({ query: `CREATE TABLE otherds.secrets AS SELECT '${SECRET}' AS email`, ...at });
    const other = emulatorBigQuery('other-project', emu.url);
    await other.createDataset('crm', at);
    await other.query({ query: `CREATE TABLE crm.customers AS SELECT '${SECRET}' AS email`, ...at });
    await bigquery.query({
      query: `CREATE VIEW ${p.dataset}.event_ids AS SELECT event_id FROM ${p.dataset}.events`,
      ...at,
    });
  });
  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      warehouse: studioWarehouse(bigquery, project, p),
    });
  });
  afterEach(async () => {
    await studio?.close();
    studio = undefined;
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sql = (query: string) =>
    adminCall<Record<string, unknown>>((studio as { url: string }).url, TOKEN, 'sql', { query });

  it('runs queries over its own datasets: the events tables and views, the ops dataset, their INFORMATION_SCHEMA', async () => {
    const opsTable = p.ops.tables[0]?.name as string;
    for (const query of [
      'SELECT COUNT(*) AS n FROM events',
      'SELECT COUNT(*) AS n FROM events_dedup',
      'SELECT COUNT(*) AS n FROM event_ids',
      `SELECT COUNT(*) AS n FROM \`${project}.${p.dataset}.events\``,
      `SELECT COUNT(*) AS n FROM ${p.ops.dataset}.${opsTable}`,
      `SELECT table_name FROM ${p.dataset}.INFORMATION_SCHEMA.TABLES`,
      `SELECT table_name FROM \`${project}\`.${p.ops.dataset}.INFORMATION_SCHEMA.COLUMNS`,
      `SELECT table_name FROM \`${project}.${p.dataset}.INFORMATION_SCHEMA.TABLES\``,
      // The words in a string or a comment are not a reference.
      "SELECT 'otherds.INFORMATION_SCHEMA.TABLES' AS s -- region-eu.INFORMATION_SCHEMA.JOBS",
    ]) {
      const r = await sql(query);
      assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.json)}`);
    }
    const tables = await sql(`SELECT table_name, table_type FROM ${p.dataset}.INFORMATION_SCHEMA.TABLES`);
    const views = (tables.json['rows'] as { table_name: string; table_type: string }[])
      .filter((t) => t.table_type === 'VIEW')
      .map((t) => t.table_name);
    assert.ok(views.includes('events_dedup') && views.includes('event_ids'), views.join());
  });

  it('refuses a table of another dataset or another project, naming it, and returns none of its rows', async () => {
    for (const [query, name] of [
      ['SELECT email FROM otherds.secrets', `${project}.otherds.secrets`],
      ['SELECT email FROM `other-project.crm.customers`', 'other-project.crm.customers'],
      ['SELECT email FROM `other-project`.crm.customers', 'other-project.crm.customers'],
      [
        'SELECT e.event_id, s.email FROM events e JOIN otherds.secrets s ON TRUE',
        `${project}.otherds.secrets`,
      ],
      ['WITH s AS (SELECT email FROM otherds.secrets) SELECT * FROM s', `${project}.otherds.secrets`],
      ['SELECT email FROM events_dedup, otherds.secrets', `${project}.otherds.secrets`],
    ] as const) {
      const r = await sql(query);
      assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.json)}`);
      const text = JSON.stringify(r.json);
      assert.ok(text.includes(name), `${query}: ${text}`);
      assert.ok(!text.includes(SECRET), `${query}: ${text}`);
    }
  });

  it('refuses INFORMATION_SCHEMA of a region, another dataset, another project, or none named', async () => {
    for (const [query, name] of [
      ['SELECT * FROM `region-eu`.INFORMATION_SCHEMA.TABLES', 'region-eu.INFORMATION_SCHEMA.TABLES'],
      ['SELECT * FROM `region-eu.INFORMATION_SCHEMA.JOBS`', 'region-eu.INFORMATION_SCHEMA.JOBS'],
      ['SELECT * FROM otherds.INFORMATION_SCHEMA.TABLES', 'otherds.INFORMATION_SCHEMA.TABLES'],
      [
        'SELECT * FROM `other-project`.crm.INFORMATION_SCHEMA.TABLES',
        'other-project.crm.INFORMATION_SCHEMA.TABLES',
      ],
      [
        `SELECT * FROM \`other-project.${p.dataset}\`.INFORMATION_SCHEMA.COLUMNS`,
        `other-project.${p.dataset}.INFORMATION_SCHEMA.COLUMNS`,
      ],
      ['SELECT * FROM information_schema.tables', 'information_schema.tables'],
    ] as const) {
      const r = await sql(query);
      assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.json)}`);
      const text = JSON.stringify(r.json);
      assert.ok(text.includes(name), `${query}: ${text}`);
      assert.ok(!text.includes('secrets') && !text.includes('customers'), `${query}: ${text}`);
    }
  });

  it('eventbus sql (runQuery) refuses the same, before anything runs', async () => {
    for (const query of [
      'SELECT email FROM otherds.secrets',
      'SELECT email FROM `other-project.crm.customers`',
      'SELECT * FROM otherds.INFORMATION_SCHEMA.TABLES',
    ]) {
      await assert.rejects(runQuery(bigquery, p, query, 10), (e: Error) => {
        assert.equal(e.name, 'OutsideEnvironmentError', `${query}: ${e.message}`);
        assert.match(e.message, /outside this environment/);
        return true;
      });
    }
    assert.deepEqual(await runQuery(bigquery, p, 'SELECT COUNT(*) AS n FROM event_ids', 10), [{ n: 0 }]);
  });

  it("answers a typo'd table with 400 and BigQuery's message, not 503", async () => {
    const r = await sql('SELECT * FROM evnts');
    assert.equal(r.status, 400, JSON.stringify(r.json));
    assert.match(JSON.stringify(r.json), /Not found: Table storage-test:events\.evnts/);
    const column = await sql('SELECT no_such_column FROM events');
    assert.equal(column.status, 400, JSON.stringify(column.json));
  });
});

describe('console SQL: only an outage of the warehouse is a 503', () => {
  const fx = emulatorWithFreshBuckets('console-sql-outage');

  /** The studio's answer to a query when the warehouse fails with `err`. */
  const answer = async (err: unknown) => {
    const studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      warehouse: {
        table: (name) => name,
        query: async () => [],
        select: async () => {
          throw err;
        },
        schema: async () => [],
      },
    });
    try {
      return await adminCall<Record<string, unknown>>(studio.url, TOKEN, 'sql', { query: 'SELECT 1' });
    } finally {
      await studio.close();
    }
  };
  const bigQueryError = (code: number | undefined, reason: string, message: string) =>
    Object.assign(new Error(message), {
      ...(code === undefined ? {} : { code }),
      errors: [{ reason, message }],
    });

  it('answers BigQuery’s client errors with 400 and its words', async () => {
    for (const err of [
      bigQueryError(404, 'notFound', 'Not found: Table p:events.evnts was not found in location EU'),
      bigQueryError(400, 'invalidQuery', 'Syntax error: Unexpected end of script at [1:7]'),
      bigQueryError(403, 'accessDenied', 'Access Denied: Table p:hr.salaries: User does not have permission'),
      // A job that failed once started carries no HTTP status, only the reason.
      bigQueryError(undefined, 'bytesBilledLimitExceeded', 'Query exceeded limit for bytes billed: 10.'),
    ]) {
      const r = await answer(err);
      assert.equal(r.status, 400, `${err.message}: ${JSON.stringify(r.json)}`);
      assert.ok(JSON.stringify(r.json).includes(err.message), JSON.stringify(r.json));
    }
  });

  it('answers an outage with 503: unreachable, a backend error, a rate limit, a failed credential', async () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9050'), { code: 'ECONNREFUSED' }),
      bigQueryError(503, 'backendError', 'Backend error'),
      bigQueryError(500, 'internalError', 'Internal error'),
      bigQueryError(403, 'rateLimitExceeded', 'Exceeded rate limits'),
      bigQueryError(403, 'quotaExceeded', 'Quota exceeded'),
      bigQueryError(400, 'jobBackendError', 'The job failed on the backend'),
      bigQueryError(401, 'authError', 'Request had invalid authentication credentials'),
    ]) {
      const r = await answer(err);
      assert.equal(r.status, 503, `${err.message}: ${JSON.stringify(r.json)}`);
    }
  });
});
