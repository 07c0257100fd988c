/**
 * Where a started local environment listens, recorded in `<data dir>/environment.json`, so
 * that `sql`, `replay` and the other commands find it by themselves (same `--data-dir` as
 * `start`) instead of assuming the default ports: with `--port-offset`, or on a shared
 * machine, the default ports may belong to somebody else's environment.
 *
 * Written once every service is ready (a command never reads a half-started environment),
 * atomically (a temporary file renamed over it), and removed on a clean stop. A record whose
 * pid is gone (the supervisor was killed) is reported as stale, never trusted.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerAlive } from '../emulators/common/owner-lock.ts';
import type { Ports } from './services.ts';

export const RECORD_FILE = 'environment.json';

export interface EnvironmentRecord {
  /** The supervisor's pid (`eventbus start`). */
  readonly pid: number;
  /** Its start time from /proc (owner-lock.ts), so a reused pid is not taken for it. */
  readonly pidStart?: string | null;
  readonly startedAt: string;
  /** How long its children get between SIGTERM and SIGKILL, also from its guardian; absent in older records. */
  readonly graceMs?: number;
  readonly project: string;
  readonly dataset: string;
  readonly ports: Ports;
  /** Service name → URL, as `start` prints them. */
  readonly urls: Readonly<Record<string, string>>;
  /** What a client sets as PUBSUB_EMULATOR_HOST (host:port). */
  readonly pubsubHost: string;
  /** What a client sets as BIGQUERY_EMULATOR_HOST (a URL). */
  readonly bigqueryUrl: string;
  /** What a client sets as STORAGE_EMULATOR_HOST (a URL); absent in records of older versions. */
  readonly storageUrl?: string;
  /** What a client sets as FIRESTORE_EMULATOR_HOST (host:port); absent in records of older versions. */
  readonly firestoreHost?: string;
  /** What a client sets as BIGTABLE_EMULATOR_HOST (host:port): only when the settings keep the claims in Bigtable. */
  readonly bigtableHost?: string;
  /** What a workload sets as SECRET_MANAGER_EMULATOR_HOST (a URL); absent in older records. */
  readonly secretManagerUrl?: string;
}

export function recordPath(dataDir: string): string {
  return join(dataDir, RECORD_FILE);
}

export function writeEnvironmentRecord(dataDir: string, record: EnvironmentRecord): void {
  const path = recordPath(dataDir);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(temporary, path);
}

/** Removes the record if it is this process's own (a later start may have replaced it). */
export function removeEnvironmentRecord(dataDir: string, pid: number = process.pid): void {
  const found = readRecordFile(dataDir);
  if (found?.pid === pid) rmSync(recordPath(dataDir), { force: true });
}

function readRecordFile(dataDir: string): EnvironmentRecord | undefined {
  let text: string;
  try {
    text = readFileSync(recordPath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<EnvironmentRecord>;
    return typeof parsed.pid === 'number' && typeof parsed.pubsubHost === 'string'
      ? (parsed as EnvironmentRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

export type RecordLookup =
  | { readonly state: 'running'; readonly record: EnvironmentRecord }
  | { readonly state: 'stale'; readonly record: EnvironmentRecord }
  | { readonly state: 'absent' };

/** The environment recorded in a data dir: running, left behind by a dead start, or none. */
export function readEnvironmentRecord(dataDir: string): RecordLookup {
  const record = readRecordFile(dataDir);
  if (!record) return { state: 'absent' };
  const alive = ownerAlive({ pid: record.pid, start: record.pidStart ?? null, command: '' });
  return { state: alive ? 'running' : 'stale', record };
}
