/**
 * Export subscriptions: BigQuery subscriptions insert each message as a row into a table of the
 * BigQuery emulator (tabledata.insertAll, committed before it answers), Cloud Storage
 * subscriptions batch messages into objects of a bucket of the Storage emulator (a media upload).
 * Each is a consumer of its subscription like a push worker (push.ts): a message is acknowledged
 * only once the write has succeeded, so a crash before it leaves the message in the log and it is
 * written again after the restart (insertAll's insertId, the message id, lets BigQuery drop the
 * repeat). A failed write nacks the batch (the engine backs off) and marks the subscription
 * RESOURCE_ERROR, with its config's state saying why (NOT_FOUND, SCHEMA_MISMATCH), as Pub/Sub
 * reports it; the next successful write makes it ACTIVE again.
 *
 * The endpoints are the emulators' base URLs (`--bigquery-endpoint`, `--storage-endpoint`, or
 * BIGQUERY_EMULATOR_HOST and STORAGE_EMULATOR_HOST, the variables Google's clients read).
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine.ts';
import { ApiError, invalid } from './errors.ts';
import { bigqueryTable, durationMs, type ExportState, type SubscriptionResource } from './resources.ts';
import type { Consumer, Subscription } from './subscription.ts';
import type { Delivery } from './types.ts';

export interface ExportEndpoints {
  /** The BigQuery emulator's base URL (`http://127.0.0.1:9050`). */
  readonly bigquery?: string | undefined;
  /** The Storage emulator's base URL. */
  readonly storage?: string | undefined;
}

/** A base URL from `host:port` or a URL, without a trailing slash. */
export function endpointUrl(value: string): string {
  return (value.includes('://') ? value : `http://${value}`).replace(/\/+$/, '');
}

/** The metadata columns `writeMetadata` fills, and the BigQuery types Pub/Sub writes them as. */
const METADATA_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  subscription_name: ['STRING'],
  message_id: ['STRING'],
  publish_time: ['TIMESTAMP'],
  attributes: ['STRING', 'JSON'],
};
const DATA_TYPES = ['STRING', 'BYTES', 'JSON'];

interface TableField {
  name: string;
  type: string;
}

/** A write that failed, with the state Pub/Sub reports for it. */
class WriteError extends Error {
  readonly state: ExportState;
  constructor(state: ExportState, message: string) {
    super(message);
    this.state = state;
  }
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url);
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Not JSON: the status says enough.
  }
  return { status: res.status, body };
}

/** The table's top-level fields, upper-cased types (`INTEGER` and `INT64` both stay as given). */
async function tableFields(base: string, table: string): Promise<TableField[]> {
  const t = bigqueryTable(table);
  if (!t) throw new WriteError('NOT_FOUND', `Invalid table ${table}`);
  const path = `${base}/bigquery/v2/projects/${encodeURIComponent(t.project)}/datasets/${encodeURIComponent(t.dataset)}/tables/${encodeURIComponent(t.table)}`;
  const { status, body } = await getJson(path);
  if (status === 404) throw new WriteError('NOT_FOUND', `Table ${table} not found.`);
  if (status !== 200) throw new WriteError('NOT_FOUND', `Table ${table} could not be read (HTTP ${status}).`);
  const fields = ((body['schema'] as { fields?: TableField[] } | undefined)?.fields ?? []).map((f) => ({
    name: f.name,
    type: String(f.type).toUpperCase(),
  }));
  return fields;
}

/** Why a table cannot take a subscription's rows, or undefined when it can (what Pub/Sub checks). */
export function schemaMismatch(sub: SubscriptionResource, fields: readonly TableField[]): string | undefined {
  const cfg = sub.bigqueryConfig;
  if (!cfg) return undefined;
  const types = new Map(fields.map((f) => [f.name, f.type]));
  const need: [string, readonly string[]][] = [];
  if (!cfg.useTopicSchema && !cfg.useTableSchema) need.push(['data', DATA_TYPES]);
  if (cfg.writeMetadata) need.push(...Object.entries(METADATA_COLUMNS));
  for (const [name, allowed] of need) {
    const type = types.get(name);
    if (!type) return `the table has no column "${name}"`;
    if (!allowed.includes(type)) return `column "${name}" is ${type}; it must be ${allowed.join(' or ')}`;
  }
  return undefined;
}

/** One message as an insertAll row of the table (its fields by name), or a SCHEMA_MISMATCH. */
export function bigqueryRow(
  sub: SubscriptionResource,
  fields: readonly TableField[],
  d: Delivery,
): Record<string, unknown> {
  const cfg = sub.bigqueryConfig;
  const m = d.message;
  const row: Record<string, unknown> = {};
  if (cfg?.useTopicSchema || cfg?.useTableSchema) {
    // The message is a JSON object whose fields are columns (JSON-encoded messages only).
    let value: unknown;
    try {
      value = JSON.parse(m.data.toString('utf8'));
    } catch {
      throw new WriteError('SCHEMA_MISMATCH', `message ${m.id} is not a JSON object`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new WriteError('SCHEMA_MISMATCH', `message ${m.id} is not a JSON object`);
    const names = new Set(fields.map((f) => f.name));
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (names.has(k)) row[k] = v;
      else if (!cfg.dropUnknownFields)
        throw new WriteError('SCHEMA_MISMATCH', `message ${m.id} has field "${k}", which the table has not`);
    }
  } else {
    const type = fields.find((f) => f.name === 'data')?.type;
    row['data'] = type === 'BYTES' ? m.data.toString('base64') : m.data.toString('utf8');
  }
  if (cfg?.writeMetadata) {
    row['subscription_name'] = sub.name;
    row['message_id'] = String(m.id);
    row['publish_time'] = new Date(m.publishTime).toISOString();
    row['attributes'] = JSON.stringify(m.attributes);
  }
  return row;
}

/**
 * Settles deliveries for a writer: acks of one subscription together, nacks one by one; a
 * subscription deleted meanwhile has nothing left to settle.
 */
function settle(engine: Engine, sub: Subscription, batch: readonly Delivery[], ok: boolean): void {
  if (batch.length === 0) return;
  try {
    if (ok) {
      engine
        .acknowledge(
          sub.name,
          batch.map((d) => d.ackId),
        )
        .catch(() => undefined);
    } else for (const d of batch) engine.nack(sub, d.ackId);
  } catch {
    // Deleted meanwhile.
  }
}

/** What both writers share: the consumer's counters, the subscription, the endpoint. */
abstract class ExportWriter implements Consumer {
  abstract readonly maxMessages: number;
  readonly maxBytes = 0;
  outstanding = 0;
  outstandingBytes = 0;
  protected sub: Subscription;
  protected readonly engine: Engine;
  protected readonly base: string;
  protected stopped = false;

  constructor(engine: Engine, sub: Subscription, base: string) {
    this.engine = engine;
    this.sub = sub;
    this.base = base;
  }

  update(sub: Subscription): void {
    this.sub = sub;
  }

  abstract leaseMs(): number;
  abstract deliver(batch: Delivery[]): void;
  abstract stop(): void;
}

/** Up to this many rows per insertAll (BigQuery recommends 500). */
const ROWS_PER_INSERT = 500;

/** Writes a BigQuery subscription's messages as rows, one insertAll per batch. */
export class BigQueryWriter extends ExportWriter {
  readonly maxMessages = ROWS_PER_INSERT * 4;
  private readonly queue: Delivery[] = [];
  private writing = false;
  private fields: { table: string; fields: TableField[] } | undefined;

  override update(sub: Subscription): void {
    super.update(sub);
    this.fields = undefined;
  }

  leaseMs(): number {
    return Math.max(60_000, this.sub.resource.ackDeadlineSeconds * 1000);
  }

  deliver(batch: Delivery[]): void {
    this.queue.push(...batch);
    if (!this.writing) void this.drain();
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0 && !this.stopped) {
      const batch = this.queue.splice(0, ROWS_PER_INSERT);
      const sub = this.sub;
      let failed: readonly Delivery[] = batch;
      let state: ExportState = 'ACTIVE';
      try {
        failed = await this.insert(sub, batch);
        if (failed.length > 0) state = 'SCHEMA_MISMATCH';
      } catch (err) {
        state = err instanceof WriteError ? err.state : 'NOT_FOUND';
      }
      // The table's schema may have changed: read it again next time.
      if (failed.length > 0) this.fields = undefined;
      this.engine.setExportState(sub, state);
      const kept = new Set(failed);
      settle(
        this.engine,
        sub,
        batch.filter((d) => !kept.has(d)),
        true,
      );
      settle(this.engine, sub, failed, false);
    }
    this.writing = false;
  }

  /**
   * Inserts the batch's rows and answers the deliveries not written: messages that make no row
   * of the table and rows insertAll refused (the others are inserted: `skipInvalidRows`), as
   * Pub/Sub keeps only the messages it cannot write. Throws when nothing could be written.
   */
  private async insert(sub: Subscription, batch: readonly Delivery[]): Promise<Delivery[]> {
    const cfg = sub.resource.bigqueryConfig;
    if (!cfg) throw new WriteError('NOT_FOUND', 'not a BigQuery subscription');
    if (this.fields?.table !== cfg.table)
      this.fields = { table: cfg.table, fields: await tableFields(this.base, cfg.table) };
    const fields = this.fields.fields;
    const mismatch = schemaMismatch(sub.resource, fields);
    if (mismatch) throw new WriteError('SCHEMA_MISMATCH', mismatch);
    const rows: { insertId: string; json: Record<string, unknown> }[] = [];
    const sent: Delivery[] = [];
    const failed: Delivery[] = [];
    for (const d of batch) {
      try {
        rows.push({ insertId: String(d.message.id), json: bigqueryRow(sub.resource, fields, d) });
        sent.push(d);
      } catch (err) {
        if (!(err instanceof WriteError)) throw err;
        failed.push(d);
      }
    }
    if (rows.length === 0) return failed;
    const t = bigqueryTable(cfg.table);
    if (!t) throw new WriteError('NOT_FOUND', `Invalid table ${cfg.table}`);
    const url = `${this.base}/bigquery/v2/projects/${encodeURIComponent(t.project)}/datasets/${encodeURIComponent(t.dataset)}/tables/${encodeURIComponent(t.table)}/insertAll`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rows, skipInvalidRows: true }),
    });
    const body = (await res.json().catch(() => ({}))) as { insertErrors?: { index: number }[] };
    if (res.status === 404) throw new WriteError('NOT_FOUND', `Table ${cfg.table} not found.`);
    if (res.status !== 200)
      throw new WriteError('SCHEMA_MISMATCH', `insertAll refused the rows (HTTP ${res.status})`);
    for (const e of body.insertErrors ?? []) {
      const d = sent[e.index];
      if (d) failed.push(d);
    }
    return failed;
  }

  stop(): void {
    this.stopped = true;
  }
}

const DEFAULT_MAX_DURATION_MS = 5 * 60_000;

/**
 * A datetime in a Cloud Storage subscription's file name: `YYYY`, `MM`, `DD`, `hh`, `mm`, `ss`
 * replaced by the UTC fields, everything else kept; the default is `YYYY-MM-DDThh:mm:ssZ`.
 */
export function fileDatetime(format: string | undefined, at: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const parts: Record<string, string> = {
    YYYY: String(at.getUTCFullYear()),
    MM: pad(at.getUTCMonth() + 1),
    DD: pad(at.getUTCDate()),
    hh: pad(at.getUTCHours()),
    mm: pad(at.getUTCMinutes()),
    ss: pad(at.getUTCSeconds()),
  };
  return (format || 'YYYY-MM-DDThh:mm:ssZ').replace(/YYYY|MM|DD|hh|mm|ss/g, (k) => parts[k] as string);
}

/** The object name of a file: prefix, datetime, a unique id, suffix. */
export function objectName(sub: SubscriptionResource, at: Date): string {
  const c = sub.cloudStorageConfig;
  return `${c?.filenamePrefix ?? ''}${fileDatetime(c?.filenameDatetimeFormat, at)}_${randomUUID()}${c?.filenameSuffix ?? ''}`;
}

/** Text format: each message's data, one per line. */
export function textFile(batch: readonly Delivery[]): Buffer {
  const parts: Buffer[] = [];
  for (const d of batch) parts.push(d.message.data, Buffer.from('\n'));
  return Buffer.concat(parts);
}

/**
 * Writes a Cloud Storage subscription's messages into objects: a file is written once it holds
 * `maxBytes` or `maxMessages`, or `maxDuration` after its first message; its messages are
 * acknowledged once the object is stored.
 */
export class StorageWriter extends ExportWriter {
  readonly maxMessages = 0;
  private file: Delivery[] = [];
  private fileBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  private get maxDurationMs(): number {
    const d = this.sub.resource.cloudStorageConfig?.maxDuration;
    return d ? (durationMs(d) ?? DEFAULT_MAX_DURATION_MS) : DEFAULT_MAX_DURATION_MS;
  }

  leaseMs(): number {
    // Held until the file is written: its duration, and time to write it.
    return this.maxDurationMs + 60_000;
  }

  deliver(batch: Delivery[]): void {
    const c = this.sub.resource.cloudStorageConfig;
    const maxBytes = Number(c?.maxBytes ?? 0);
    const maxMessages = Number(c?.maxMessages ?? 0);
    for (const d of batch) {
      this.file.push(d);
      this.fileBytes += d.message.data.length + 1;
      if (
        (maxBytes > 0 && this.fileBytes >= maxBytes) ||
        (maxMessages > 0 && this.file.length >= maxMessages)
      )
        this.roll();
    }
    if (this.file.length > 0 && !this.timer) this.timer = setTimeout(() => this.roll(), this.maxDurationMs);
  }

  /** Ends the current file and writes it. */
  private roll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.file;
    this.file = [];
    this.fileBytes = 0;
    if (batch.length === 0 || this.stopped) return;
    void this.write(this.sub, batch);
  }

  private async write(sub: Subscription, batch: Delivery[]): Promise<void> {
    const c = sub.resource.cloudStorageConfig;
    let ok = false;
    try {
      if (!c) throw new WriteError('NOT_FOUND', 'not a Cloud Storage subscription');
      const name = objectName(sub.resource, new Date());
      const url = `${this.base}/upload/storage/v1/b/${encodeURIComponent(c.bucket)}/o?uploadType=media&name=${encodeURIComponent(name)}`;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: new Uint8Array(textFile(batch)),
      });
      await res.arrayBuffer();
      if (res.status === 404) throw new WriteError('NOT_FOUND', `Bucket ${c.bucket} not found.`);
      if (res.status !== 200) throw new WriteError('NOT_FOUND', `The upload failed (HTTP ${res.status}).`);
      ok = true;
      this.engine.setExportState(sub, 'ACTIVE');
    } catch (err) {
      this.engine.setExportState(sub, err instanceof WriteError ? err.state : 'NOT_FOUND');
    }
    if (!this.stopped) settle(this.engine, sub, batch, ok);
  }

  stop(): void {
    // The file being filled is left unwritten: its messages are not acknowledged, so they are
    // delivered again (after a restart, at once).
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * What Pub/Sub checks when an export subscription is created or its config changed: the table
 * exists and has the columns its options write, the bucket exists.
 */
export async function checkExport(endpoints: ExportEndpoints, sub: SubscriptionResource): Promise<void> {
  if (sub.bigqueryConfig) {
    if (!endpoints.bigquery)
      throw new ApiError(
        'FAILED_PRECONDITION',
        'BigQuery subscriptions need the BigQuery emulator: start this emulator with --bigquery-endpoint (or BIGQUERY_EMULATOR_HOST).',
      );
    let fields: TableField[];
    try {
      fields = await tableFields(endpointUrl(endpoints.bigquery), sub.bigqueryConfig.table);
    } catch (err) {
      if (err instanceof WriteError) throw new ApiError('NOT_FOUND', err.message);
      throw new ApiError('UNAVAILABLE', `The BigQuery emulator did not answer: ${String(err)}`);
    }
    const mismatch = schemaMismatch(sub, fields);
    if (mismatch)
      throw invalid(
        `Incompatible table schema for ${sub.bigqueryConfig.table}: ${mismatch}.`,
        'bigquery_config.table',
      );
  }
  if (sub.cloudStorageConfig) {
    if (!endpoints.storage)
      throw new ApiError(
        'FAILED_PRECONDITION',
        'Cloud Storage subscriptions need the Storage emulator: start this emulator with --storage-endpoint (or STORAGE_EMULATOR_HOST).',
      );
    const bucket = sub.cloudStorageConfig.bucket;
    let status: number;
    try {
      status = (await getJson(`${endpointUrl(endpoints.storage)}/storage/v1/b/${encodeURIComponent(bucket)}`))
        .status;
    } catch (err) {
      throw new ApiError('UNAVAILABLE', `The Storage emulator did not answer: ${String(err)}`);
    }
    if (status === 404) throw new ApiError('NOT_FOUND', `Bucket ${bucket} not found.`);
    if (status !== 200)
      throw new ApiError('UNAVAILABLE', `Bucket ${bucket} could not be read (HTTP ${status}).`);
  }
}
