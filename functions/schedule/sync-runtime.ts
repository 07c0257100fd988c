/**
 * What every step of a sync run reads (sync-steps.ts, sync-destinations.ts): the job's
 * dependencies (the warehouse, the bucket, the bus, the platforms' HTTP, the run tables), the one
 * `SyncRun` value a chunk's steps pass along, the page on its way out, and the settings
 * connections a destination names.
 */

import type { Snapshot } from '../../adapters/registry.ts';
import type { SyncCursor } from '../../core/syncs/sync-run.ts';
import type { Change, SyncVersion } from '../../core/syncs/syncs.ts';
import type { Connection, Settings } from '../../schemas/settings.ts';
import type { ConnectionDeps } from './connections.ts';
import type { ChunkContext } from './runner.ts';

export interface SyncJobDeps extends ConnectionDeps {
  readonly settings: Readonly<Settings>;
  /** The registry's syncs (a copy refreshed every 30 s; `fresh`: read now). */
  readonly syncs: (fresh?: boolean) => Promise<Snapshot>;
  /** The ops dataset. */
  readonly ops: string;
  /** Throws unless the SQL is a single SELECT (a dry run). */
  readonly assertSelect: (sql: string) => Promise<void>;
  /** Runs a statement (DDL, CTAS, MERGE or SELECT) under the bytes cap; plain rows. */
  readonly run: (sql: string) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** tabledata.list of an ops table: `maxResults` rows from `startIndex`. */
  readonly page: (
    table: string,
    startIndex: number,
    maxResults: number,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
  /** Creates an object only if absent: `created`, or `exists` when an earlier attempt wrote it. */
  readonly writeFile: (
    bucket: string,
    path: string,
    body: string,
    contentType: string,
  ) => Promise<'created' | 'exists'>;
  readonly publish: (
    topic: string,
    body: Record<string, unknown>,
    attributes: Record<string, string>,
  ) => Promise<unknown>;
  readonly writeRun: (row: Record<string, unknown>, insertId: string) => Promise<void>;
  /** Rows a run could not send (`sync_failed_rows`), each with its insertId. */
  readonly writeFailedRows: (
    rows: readonly { readonly insertId: string; readonly row: Record<string, unknown> }[],
  ) => Promise<void>;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
  /** OAuth access tokens (Google Ads Customer Match), as the forward function gets them; absent: none. */
  readonly accessToken?: (credentials: string, scope: string, fresh: boolean) => Promise<string>;
}

/** One chunk of one sync's run: what every step reads. */
export interface SyncRun {
  readonly deps: SyncJobDeps;
  readonly sync: SyncVersion;
  readonly ctx: ChunkContext;
}

/** One page of changes on its way to the destination. */
export interface Page {
  /** 1-based, as the destination sees it (webhook header, file part, audience batch). */
  readonly number: number;
  /** Whether it holds the run's last planned rows (Meta's `last_batch_flag`). */
  readonly last: boolean;
  readonly changes: readonly Change[];
  /** The cursor before the page (its planned total). */
  readonly cursor: SyncCursor;
  /** Planned by an earlier version (its changes name keys and carry rows): committed as it did. */
  readonly legacy?: boolean;
}

/** The settings connection a destination names; throws (the chunk is retried) when it is gone. */
export function connectionOf(settings: Readonly<Settings>, id: string): Connection {
  const c = (settings.connections ?? []).find((x) => x.id === id);
  if (!c) throw new Error(`connection ${id} is not in the settings`);
  return c;
}

/** A connection and the value of its secret in `role`; throws (the chunk is retried) without one. */
export async function connectionSecret(
  deps: SyncJobDeps,
  id: string,
  role: string,
): Promise<{ readonly c: Connection; readonly value: string }> {
  const c = connectionOf(deps.settings, id);
  const name = c.secrets?.[role];
  const value = name ? await deps.secret(name) : undefined;
  if (!value) throw new Error(`connection ${c.id} has no ${role} secret with a value`);
  return { c, value };
}
