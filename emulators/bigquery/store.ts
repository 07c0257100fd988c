/**
 * The DuckDB file behind the emulator: one connection, every use serialised through a
 * promise chain (DuckDB allows one writer process; a single connection keeps statement
 * order obvious and makes each request's work atomic with respect to the others).
 * Dataset and table resources live in the `_emulator` schema so they survive restarts
 * with the data they describe.
 */
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBType,
} from '@duckdb/node-api';
import { rangeMacros } from './range.ts';

export interface DatasetRecord {
  projectId: string;
  datasetId: string;
  resource: Record<string, unknown>;
}
export interface TableRecord {
  projectId: string;
  datasetId: string;
  tableId: string;
  resource: Record<string, unknown>;
}

const key = (...parts: string[]) => parts.join('\u0000');

export interface StoreOptions {
  /**
   * Milliseconds without an insert after which a WAL holding at least `idleCheckpointBytes`
   * is folded into the file (default 1000). DuckDB checkpoints by itself when the WAL passes
   * 16 MB, inside the commit that crosses it, stalling every insert behind it for 0.2-0.8 s;
   * doing it when the inserts pause means a stream of bursts rarely meets that stall.
   */
  readonly idleCheckpointMs?: number;
  /** Default 1 MiB: a small WAL replays fast enough and is not worth a checkpoint. */
  readonly idleCheckpointBytes?: number;
}

/** An appender kept open between group commits, with its column types read once. */
export interface CachedAppender {
  readonly appender: DuckDBAppender;
  readonly types: readonly DuckDBType[];
}

export class Store {
  readonly instance: DuckDBInstance;
  readonly conn: DuckDBConnection;
  readonly datasets = new Map<string, DatasetRecord>();
  readonly tables = new Map<string, TableRecord>();
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** A second connection that only parses (no catalog, no lock): see `parse`. */
  private parser: Promise<DuckDBConnection> | undefined;
  /**
   * Appenders of the insert path, by table. Creating one costs about half a millisecond and
   * an insert-only stretch (the usual streaming load) reuses them; any other use of the
   * connection closes them first, so no appender outlives a schema change or a drop.
   */
  private readonly appenders = new Map<string, CachedAppender>();
  /** Prepared insert statements of the insert path, by table; same lifetime as the appenders. */
  private readonly statements = new Map<string, DuckDBPreparedStatement>();

  private readonly walPath: string;
  private readonly idleMs: number;
  private readonly idleBytes: number;
  private idleTimer: NodeJS.Timeout | undefined;
  /** Idle checkpoints done (for tests and logs). */
  idleCheckpoints = 0;

  private constructor(
    instance: DuckDBInstance,
    conn: DuckDBConnection,
    walPath: string,
    options: StoreOptions,
  ) {
    this.instance = instance;
    this.conn = conn;
    this.walPath = walPath;
    this.idleMs = options.idleCheckpointMs ?? 1000;
    this.idleBytes = options.idleCheckpointBytes ?? 1 << 20;
  }

  static async open(dataDir: string, options: StoreOptions = {}): Promise<Store> {
    mkdirSync(dataDir, { recursive: true });
    const instance = await DuckDBInstance.create(join(dataDir, 'bigquery.duckdb'), {
      // No extension downloads: the emulator works offline with the statically linked ones.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
      // BigQuery sorts NULLs first ascending and last descending; DuckDB's default is last for both.
      default_null_order: 'nulls_first_on_asc_last_on_desc',
    });
    const conn = await instance.connect();
    const store = new Store(instance, conn, join(dataDir, 'bigquery.duckdb.wal'), options);
    await conn.run(`SET TimeZone = 'UTC'`);
    // The RANGE functions (range.ts): temporary, so the database file holds only data.
    for (const macro of rangeMacros()) await conn.run(macro);
    await conn.run('CREATE SCHEMA IF NOT EXISTS _emulator');
    await conn.run(
      'CREATE TABLE IF NOT EXISTS _emulator.datasets (project VARCHAR, dataset VARCHAR, resource VARCHAR, PRIMARY KEY (project, dataset))',
    );
    await conn.run(
      'CREATE TABLE IF NOT EXISTS _emulator.tables (project VARCHAR, dataset VARCHAR, table_id VARCHAR, resource VARCHAR, PRIMARY KEY (project, dataset, table_id))',
    );
    for (const row of (
      await conn.runAndReadAll('SELECT project, dataset, resource FROM _emulator.datasets')
    ).getRows()) {
      const [p, d, r] = row as [string, string, string];
      store.datasets.set(key(p, d), { projectId: p, datasetId: d, resource: JSON.parse(r) });
    }
    for (const row of (
      await conn.runAndReadAll('SELECT project, dataset, table_id, resource FROM _emulator.tables')
    ).getRows()) {
      const [p, d, t, r] = row as [string, string, string, string];
      store.tables.set(key(p, d, t), { projectId: p, datasetId: d, tableId: t, resource: JSON.parse(r) });
    }
    return store;
  }

  /** Runs `fn` alone on the connection, after everything queued before it. */
  exclusive<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    return this.serialised(() => {
      this.closeAppenders();
      return fn(this.conn);
    });
  }

  /**
   * Like `exclusive`, for the insert path only: cached appenders stay open, so a stream of
   * insertAll group commits does not re-create them (see `appender`).
   */
  appending<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    this.armIdleCheckpoint();
    return this.serialised(() => fn(this.conn));
  }

  /** (Re)starts the idle timer: it fires only once inserts have paused for `idleMs`. */
  private armIdleCheckpoint(): void {
    if (this.idleTimer) {
      this.idleTimer.refresh();
      return;
    }
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      void this.checkpointIfLarge();
    }, this.idleMs);
    // A pending idle checkpoint must not keep a stopping process alive (close() checkpoints).
    this.idleTimer.unref();
  }

  private async checkpointIfLarge(): Promise<void> {
    let size = 0;
    try {
      size = statSync(this.walPath).size;
    } catch {
      return; // no WAL: nothing to fold
    }
    if (size < this.idleBytes || this.closed) return;
    await this.exclusive(async (conn) => {
      await conn.run('CHECKPOINT');
      this.idleCheckpoints++;
    }).catch(() => undefined); // a failed checkpoint leaves the WAL as it was: still durable
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(() => {
      if (this.closed) throw new Error('store closed');
      return fn();
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** The cached appender of a table (call inside `appending`). */
  async appender(conn: DuckDBConnection, schema: string, tableId: string): Promise<CachedAppender> {
    const k = key(schema, tableId);
    let cached = this.appenders.get(k);
    if (!cached) {
      const appender = await conn.createAppender(tableId, schema);
      const types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
      cached = { appender, types };
      this.appenders.set(k, cached);
    }
    return cached;
  }

  /**
   * The cached prepared statement `sql` of a table (call inside `appending`): planning the
   * JSON insert costs more than a millisecond, once per table instead of once per commit.
   */
  async statement(
    conn: DuckDBConnection,
    schema: string,
    tableId: string,
    sql: string,
  ): Promise<DuckDBPreparedStatement> {
    const k = key(schema, tableId, sql);
    let prepared = this.statements.get(k);
    if (!prepared) {
      prepared = await conn.prepare(sql);
      this.statements.set(k, prepared);
    }
    return prepared;
  }

  /**
   * Closes one table's cached appender. Its buffer is cleared first: after a failed flush
   * the rows still buffered belong to requests that were answered with an error, and
   * closing would otherwise try to write them again.
   */
  dropAppender(schema: string, tableId: string): void {
    const k = key(schema, tableId);
    const cached = this.appenders.get(k);
    if (!cached) return;
    this.appenders.delete(k);
    try {
      cached.appender.clear();
      cached.appender.closeSync();
    } catch {
      // Nothing is buffered any more; a failing close leaves nothing to undo.
    }
  }

  private closeAppenders(): void {
    // A statement planned against a table must not outlive a schema change or a drop either.
    for (const prepared of this.statements.values()) prepared.destroySync();
    this.statements.clear();
    for (const k of [...this.appenders.keys()]) {
      const [schema, table] = k.split('\u0000') as [string, string];
      this.dropAppender(schema, table);
    }
  }

  dataset(projectId: string, datasetId: string): DatasetRecord | undefined {
    return this.datasets.get(key(projectId, datasetId));
  }
  table(projectId: string, datasetId: string, tableId: string): TableRecord | undefined {
    return this.tables.get(key(projectId, datasetId, tableId));
  }
  /** Every view of every dataset. */
  views(): TableRecord[] {
    return [...this.tables.values()].filter((t) => t.resource['type'] === 'VIEW');
  }
  tablesOf(projectId: string, datasetId: string): TableRecord[] {
    return [...this.tables.values()].filter((t) => t.projectId === projectId && t.datasetId === datasetId);
  }

  /** Writes a dataset resource (call inside `exclusive`). */
  async putDataset(conn: DuckDBConnection, rec: DatasetRecord): Promise<void> {
    await conn.run('INSERT OR REPLACE INTO _emulator.datasets VALUES ($1, $2, $3)', [
      rec.projectId,
      rec.datasetId,
      JSON.stringify(rec.resource),
    ]);
    this.datasets.set(key(rec.projectId, rec.datasetId), rec);
  }
  async deleteDataset(conn: DuckDBConnection, projectId: string, datasetId: string): Promise<void> {
    await conn.run('DELETE FROM _emulator.datasets WHERE project = $1 AND dataset = $2', [
      projectId,
      datasetId,
    ]);
    await conn.run('DELETE FROM _emulator.tables WHERE project = $1 AND dataset = $2', [
      projectId,
      datasetId,
    ]);
    this.datasets.delete(key(projectId, datasetId));
    for (const t of this.tablesOf(projectId, datasetId))
      this.tables.delete(key(projectId, datasetId, t.tableId));
  }
  async putTable(conn: DuckDBConnection, rec: TableRecord): Promise<void> {
    await conn.run('INSERT OR REPLACE INTO _emulator.tables VALUES ($1, $2, $3, $4)', [
      rec.projectId,
      rec.datasetId,
      rec.tableId,
      JSON.stringify(rec.resource),
    ]);
    this.tables.set(key(rec.projectId, rec.datasetId, rec.tableId), rec);
  }
  async deleteTable(
    conn: DuckDBConnection,
    projectId: string,
    datasetId: string,
    tableId: string,
  ): Promise<void> {
    await conn.run('DELETE FROM _emulator.tables WHERE project = $1 AND dataset = $2 AND table_id = $3', [
      projectId,
      datasetId,
      tableId,
    ]);
    this.tables.delete(key(projectId, datasetId, tableId));
  }

  /** Checkpoints (folds the WAL into the file) and closes. */
  /**
   * Parses DuckDB SQL without running or binding it, on a connection of its own, so a statement's
   * syntax is checked while a long job holds the main connection; throws DuckDB's parser error.
   */
  async parse(sql: string): Promise<void> {
    this.parser ??= this.instance.connect();
    await (await this.parser).extractStatements(sql);
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    if (this.parser) (await this.parser.catch(() => undefined))?.closeSync();
    await this.exclusive(async (conn) => {
      await conn.run('CHECKPOINT');
    }).catch(() => undefined);
    this.closed = true;
    this.conn.closeSync();
    this.instance.closeSync();
  }
}
