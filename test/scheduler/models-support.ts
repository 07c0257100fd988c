/**
 * What the incremental models' tests on the BigQuery emulator share: a provisioned emulator, an
 * event turned into the row the store function writes (its message attributes kept), and a query's
 * rows as plain values.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { plainValue } from '../../adapters/user-sql.ts';
import { SESSION_TABLES } from '../../core/models/sessions.ts';
import type { Plan } from '../../core/plan.ts';
import { erasureStatements } from '../../core/privacy/erasure.ts';
import { expandSql, needlePatterns } from '../../core/privacy/person.ts';
import { messageRows, type StoreConfig } from '../../core/store/store.ts';
import { startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';

/** A BigQuery emulator in a temporary directory with the plan's datasets and tables. */
export interface ModelsWarehouse {
  readonly bigquery: BigQuery;
  close(): Promise<void>;
}

export async function modelsWarehouse(p: Plan, project: string): Promise<ModelsWarehouse> {
  const dir = mkdtempSync(join(tmpdir(), 'eventbus-models-'));
  const emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
  await provision(p, { project, bigquery: emu.url, functionUrl: () => '' });
  return {
    bigquery: emulatorBigQuery(project, emu.url),
    close: async () => {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The `events` row of message `m<n>` (event `e<n>` unless the event names its own), published 1 s
 * after `time` and stored then, as the store function builds it.
 */
export function storedRow(
  config: StoreConfig,
  n: number,
  time: string,
  event: Readonly<Record<string, unknown>>,
  attributes: Readonly<Record<string, string>> = {},
): { insertId: string; json: Record<string, unknown> } {
  const r = messageRows(
    {
      messageId: `m${n}`,
      publishTime: new Date(Date.parse(time) + 1000).toISOString(),
      attributes,
      data: Buffer.from(JSON.stringify({ event_id: `e${n}`, event_time: time, ...event })),
      subscription: 'events-store',
      deliveryAttempt: 1,
    },
    config,
    Date.parse(time) + 1000,
  );
  if (r.kind !== 'event') assert.fail(JSON.stringify(r));
  return { insertId: r.row.insertId, json: r.row.json };
}

/** A query's rows, their values plain (numbers, strings, ISO times). */
export async function queryRows(
  bigquery: BigQuery,
  sql: string,
  params?: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown>[]> {
  const [rows] = await bigquery.query({ query: sql, ...(params ? { params } : {}) });
  return (rows as unknown[]).map((r) => plainValue(r) as Record<string, unknown>);
}

/**
 * Erases a person from the models as the erasure job's statements do (core/privacy/erasure.ts):
 * widens the identifiers once, then runs the statements of the models' tables. The widened list.
 */
export async function eraseFromModels(
  bigquery: BigQuery,
  p: Plan,
  project: string,
  given: readonly string[],
): Promise<string[]> {
  const options = {
    project,
    dataset: p.dataset,
    ops: p.ops.dataset,
    identityGraph: true,
    actionRuns: false,
    syncs: [],
  };
  const found = await queryRows(bigquery, expandSql(options), { identifiers: [...given] });
  const identifiers = [...new Set([...given, ...found.map((r) => String(r['identifier']))])];
  const models = new Set(Object.values(SESSION_TABLES).map((t) => `${p.dataset}.${t}`));
  for (const s of erasureStatements(options).filter((x) => models.has(x.table)))
    await queryRows(bigquery, s.sql, { identifiers, patterns: needlePatterns(identifiers, []) });
  return identifiers;
}

/**
 * Two persons' rows in the ops tables that keep a person's values in free text: a refused
 * request whose path holds A's e-mail (and one holding B's user id), and a failed sync row keyed
 * by each user id. `at` is when.
 */
export async function opsRowsOfTwo(
  bigquery: BigQuery,
  ops: string,
  at: string,
  users: readonly [string, string],
): Promise<void> {
  const refusal = (path: string) => ({
    refused_at: at,
    status: 404,
    code: 'NOT_FOUND',
    reason: 'NOT_FOUND',
    source: '(anonymous)',
    represents: 1,
    path,
  });
  await bigquery
    .dataset(ops)
    .table('gateway_refusals')
    .insert([refusal('/v1/x?email=ann%40example.com'), refusal(`/v1/x?u=${users[1]}`)]);
  const failedRow = (user: string) => ({
    sync: 'crm',
    run_id: 'Sync/crm@x',
    key: JSON.stringify({ user_id: user }),
    op: 'upsert',
    reason: '500',
    failed_at: at,
  });
  await bigquery
    .dataset(ops)
    .table('sync_failed_rows')
    .insert(users.map((u) => failedRow(u)));
}
