import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../server.ts';

export interface Harness {
  emulator: BigQueryEmulator;
  bq: BigQuery;
  dataDir: string;
  stop(): Promise<void>;
}

/** An emulator on port 0 over a fresh temp directory, and the real client pointed at it. */
export async function startHarness(projectId = 'test-project'): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bq-emu-'));
  const emulator = await startBigQueryEmulator({ port: 0, dataDir });
  const bq = new BigQuery({ projectId, apiEndpoint: emulator.url });
  return {
    emulator,
    bq,
    dataDir,
    async stop() {
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Plain JSON of client rows (BigQueryTimestamp → {value}, Buffer → {type,data}) for deep equality. */
export function plain(rows: unknown): unknown {
  return JSON.parse(JSON.stringify(rows));
}

/** The error body's first reason, as the client exposes it. */
export function reasonOf(err: unknown): string | undefined {
  const e = err as { errors?: { reason?: string }[]; response?: { body?: string } };
  return e.errors?.[0]?.reason;
}

/** The project the API tests use. */
export const P = 'test-project';

export interface ClientError extends Error {
  code?: number;
}

/** Expects a client call to fail with this HTTP code and BigQuery reason (and message). */
export async function rejectsWith(
  p: Promise<unknown>,
  code: number,
  reason: string,
  message?: RegExp,
): Promise<void> {
  await assert.rejects(p, (err: ClientError) => {
    assert.equal(err.code, code, err.message);
    assert.equal(reasonOf(err), reason);
    if (message) assert.match(err.message, message);
    return true;
  });
}

/** A table schema with every type and mode. */
export const ALL_TYPES = [
  { name: 'id', type: 'STRING', mode: 'REQUIRED' },
  { name: 'i', type: 'INT64' },
  { name: 'f', type: 'FLOAT64' },
  { name: 'n', type: 'NUMERIC' },
  { name: 'b', type: 'BOOL' },
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'd', type: 'DATE' },
  { name: 'dt', type: 'DATETIME' },
  { name: 'by', type: 'BYTES' },
  { name: 'j', type: 'JSON' },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  {
    name: 'user',
    type: 'RECORD',
    fields: [
      { name: 'email', type: 'STRING' },
      { name: 'address', type: 'RECORD', fields: [{ name: 'city', type: 'STRING' }] },
    ],
  },
];
