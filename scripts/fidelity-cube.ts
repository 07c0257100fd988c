#!/usr/bin/env node
/**
 * `npm run fidelity:cube [-- --strict]`: a real BI client against the BigQuery emulator. Cube's
 * BigQuery driver (`@cubejs-backend/bigquery-driver`, pinned; it brings its own, older
 * `@google-cloud/bigquery`) is installed into `.data/fidelity-cube/` on first run, outside
 * `npm install` and `npm test`, and pointed at the emulator with `BIGQUERY_EMULATOR_HOST` alone,
 * as a user would. It then does what Cube does on start and on a dashboard query: tests the
 * connection, introspects the schema (`INFORMATION_SCHEMA.COLUMNS` in each dataset, read as
 * `columns.column_name`), reads a table's columns, and runs a query of the shape Cube generates
 * (positional `TIMESTAMP(?)` bounds, `DATETIME_TRUNC(DATETIME(…, 'UTC'), DAY)`, aliases, GROUP BY
 * positions). Each check prints ✔ or ✘ with what differed; the figure is the count.
 *
 * Exit 0 when the run completed, 1 on a harness error, and with `--strict` 1 on any failed check.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { BigQuery } from '@google-cloud/bigquery';
import { startBigQueryEmulator } from '../emulators/bigquery/server.ts';
import { ROOT, say } from './fidelity-harness.ts';

const DRIVER = '@cubejs-backend/bigquery-driver';
const PINNED = '1.7.43';
const PROJECT = 'cube-project';

interface CubeDriver {
  testConnection(): Promise<void>;
  tablesSchema(): Promise<Record<string, Record<string, { name: string; type: string }[]>>>;
  tableColumnTypes(table: string): Promise<{ name: string; type: string }[]>;
  query(sql: string, values: unknown[]): Promise<Record<string, unknown>[]>;
}

/** Installs the pinned driver into the cache directory once; its require. */
function installDriver(): NodeJS.Require {
  const cache = join(ROOT, '.data', 'fidelity-cube');
  const marker = join(cache, 'node_modules', '.fidelity-installed');
  const spec = `${DRIVER}@${PINNED}`;
  if (!(existsSync(marker) && readFileSync(marker, 'utf8') === spec)) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), '{"private":true}\n');
    say(`installing ${spec} into ${cache}`);
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', cache, spec],
      {
        stdio: 'inherit',
      },
    );
    writeFileSync(marker, spec);
  }
  return createRequire(join(cache, 'package.json'));
}

const strict = process.argv.includes('--strict');
const require = installDriver();
const dataDir = mkdtempSync(join(tmpdir(), 'fidelity-cube-'));
const emulator = await startBigQueryEmulator({ port: 0, dataDir });
process.env.BIGQUERY_EMULATOR_HOST = emulator.url;
process.env.CUBEJS_DB_BQ_PROJECT_ID = PROJECT;

// The data a dashboard reads, written with this project's client.
const bq = new BigQuery({ projectId: PROJECT, apiEndpoint: emulator.url });
await bq.createDataset('analytics');
await bq.dataset('analytics').createTable('events', {
  schema: [
    { name: 'event_name', type: 'STRING' },
    { name: 'event_time', type: 'TIMESTAMP' },
    { name: 'value', type: 'NUMERIC' },
    { name: 'n', type: 'INT64' },
  ],
});
await bq
  .dataset('analytics')
  .table('events')
  .insert([
    { event_name: 'view', event_time: '2024-03-01T10:00:00Z', value: '1.5', n: 1 },
    { event_name: 'buy', event_time: '2024-03-02T10:00:00Z', value: '10', n: 2 },
    { event_name: 'view', event_time: '2024-03-02T11:00:00Z', value: '2', n: 3 },
    { event_name: 'view', event_time: '2024-04-01T00:00:00Z', value: '7', n: 4 },
  ]);

const { BigQueryDriver } = require(DRIVER) as { BigQueryDriver: new (config: object) => CubeDriver };
const driver = new BigQueryDriver({ projectId: PROJECT });
say(`${DRIVER} ${PINNED} against ${emulator.url} (BIGQUERY_EMULATOR_HOST)`);

let passed = 0;
let failed = 0;
async function check(name: string, run: () => Promise<unknown>, expected: unknown): Promise<void> {
  try {
    const got = await run();
    if (isDeepStrictEqual(got, expected)) {
      passed++;
      say(`  ✔ ${name}`);
    } else {
      failed++;
      say(`  ✘ ${name}\n    expected ${JSON.stringify(expected)}\n    got      ${JSON.stringify(got)}`);
    }
  } catch (e) {
    failed++;
    say(`  ✘ ${name}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const COLUMNS = [
  { name: 'event_name', type: 'STRING' },
  { name: 'event_time', type: 'TIMESTAMP' },
  { name: 'n', type: 'INT64' },
  { name: 'value', type: 'NUMERIC' },
];
await check('testConnection (lists datasets)', () => driver.testConnection(), undefined);
await check(
  'tablesSchema (INFORMATION_SCHEMA.COLUMNS of each dataset, its default dataset)',
  async () => {
    const schema = await driver.tablesSchema();
    return Object.fromEntries(
      Object.entries(schema).map(([ds, tables]) => [
        ds,
        Object.fromEntries(
          Object.entries(tables).map(([t, cols]) => [t, cols.map((c) => ({ name: c.name, type: c.type }))]),
        ),
      ]),
    );
  },
  { analytics: { events: COLUMNS } },
);
await check(
  'tableColumnTypes (table metadata)',
  async () => (await driver.tableColumnTypes('analytics.events')).map((c) => c.name).sort(),
  ['event_name', 'event_time', 'n', 'value'],
);
await check(
  'a generated query: TIMESTAMP(?) bounds, DATETIME_TRUNC by day, count and sum by dimension',
  () =>
    driver.query(
      "SELECT `events`.event_name `events__event_name`, DATETIME_TRUNC(DATETIME(`events`.event_time, 'UTC'), DAY) `events__event_time_day`, count(*) `events__count`, sum(`events`.value) `events__value` FROM `cube-project.analytics.events` AS `events` WHERE (`events`.event_time >= TIMESTAMP(?) AND `events`.event_time <= TIMESTAMP(?)) GROUP BY 1, 2 ORDER BY 2 ASC, 1 ASC LIMIT 10000",
      ['2024-03-01T00:00:00.000Z', '2024-03-31T23:59:59.999Z'],
    ),
  [
    {
      events__event_name: 'view',
      events__event_time_day: '2024-03-01T00:00:00',
      events__count: '1',
      events__value: '1.5',
    },
    {
      events__event_name: 'buy',
      events__event_time_day: '2024-03-02T00:00:00',
      events__count: '1',
      events__value: '10',
    },
    {
      events__event_name: 'view',
      events__event_time_day: '2024-03-02T00:00:00',
      events__count: '1',
      events__value: '2',
    },
  ],
);

await emulator.close();
rmSync(dataDir, { recursive: true, force: true });
say(`\nfidelity:cube  passed ${passed}  failed ${failed}  of ${passed + failed}`);
process.exit(strict && failed > 0 ? 1 : 0);
