/**
 * Syncs (reverse ETL; docs/syncs.md), the pure part: checking a Sync's spec, a page of the
 * changes table read back as changes, and what a page becomes for each destination (webhook
 * bodies, file parts and names, topic events; audience events are audience-events.ts'). The SQL of a run is sync-sql.ts's.
 *
 * A run: (1) snapshot the model's digests into `eventbus_ops.sync_snap__<name>`; (2) compute
 * `sync_changes__<name>`: new and changed rows (and, in mirror mode, deleted keys), numbered;
 * (3) page the changes out with tabledata.list (no query cost per page), sending each page and
 * then MERGE-ing exactly those keys into `sync_state__<name>`; (4) empty the changes table. A run
 * with nothing changed sends nothing; a failed page is retried from the committed cursor and the
 * state never gets ahead of what was sent.
 */
import { createHash } from 'node:crypto';
import { eventNameProblem } from '../../schemas/catalogue.ts';
import type { Connection } from '../../schemas/settings.ts';
import { SyncSpec } from '../../schemas/sync.ts';
import type { StoredEvent } from '../event.ts';
import { applyMapping } from '../linkage/engine.ts';
import type { CustomerMatchTarget } from '../platforms/google-ads/audience.ts';
import { connectionProblem, specChecker } from '../references/connections.ts';
import { publishTargetProblem } from '../rules/publish-topic.ts';
import { scheduleProblem } from '../scheduler/cadence.ts';

export interface SyncVersion {
  readonly name: string;
  readonly version: string;
  readonly spec: SyncSpec;
}

/** The violations of a Sync's spec (`prefix` names it), given the settings' connections. */
export const syncViolations = specChecker<SyncSpec>(SyncSpec, (s, prefix, connections, out) => {
  const why = scheduleProblem(s.schedule);
  if (why) out.push({ field: `${prefix}.schedule`, description: why });
  const d = s.destination;
  const named = connectionOf(d);
  const bad = named ? connectionProblem(connections, named.id, named.type) : undefined;
  if (bad && named) out.push({ field: `${prefix}.destination.${named.key}.connection`, description: bad });
  if (s.cursor !== undefined && s.mode === 'mirror')
    out.push({
      field: `${prefix}.cursor`,
      description:
        'mirror finds deletions by reading the whole model, which a cursor skips: drop one of them',
    });
  if ('topic' in d) {
    const bad = eventNameProblem(d.topic.event_name);
    if (bad) out.push({ field: `${prefix}.destination.topic.event_name`, description: bad });
    const internal = d.topic.topic === undefined ? undefined : publishTargetProblem(d.topic.topic);
    if (internal) out.push({ field: `${prefix}.destination.topic.topic`, description: internal });
  }
  if ('google_ads_audience' in d && !bad && !termsAccepted(d.google_ads_audience, connections))
    out.push({
      field: `${prefix}.destination.google_ads_audience.terms_of_service`,
      description: `must be accepted: Google adds Customer Match members only when the upload says the advertiser accepted its Customer Match terms (termsOfService.customerMatchTermsOfServiceStatus ACCEPTED, Data Manager API IngestAudienceMembersRequest), so every row would fail; once accepted (support.google.com/adspolicy/answer/6299717), set terms_of_service: accepted here or on connection ${d.google_ads_audience.connection}`,
    });
  if ('audience' in d) {
    const internal = d.audience.topic === undefined ? undefined : publishTargetProblem(d.audience.topic);
    if (internal) out.push({ field: `${prefix}.destination.audience.topic`, description: internal });
    if (s.mode === 'mirror' && !s.primary_key.some((k) => MEMBER_COLUMNS.includes(k)))
      out.push({
        field: `${prefix}.primary_key`,
        description: `an audience's exit names the member by the row's key alone (the row has left the model): in mirror mode the key must hold one of ${MEMBER_COLUMNS.join(', ')}`,
      });
  }
  if (s.mode === 'mirror' && 'topic' in d)
    out.push({
      field: `${prefix}.mode`,
      description: 'mirror sends deletions, which a topic destination cannot carry',
    });
});

/**
 * The columns that name a person, one of which an audience member's row (and, in mirror mode, its
 * key: an exit knows the member by it) must have (audience-events.ts).
 */
export const MEMBER_COLUMNS: readonly string[] = ['user_id', 'anonymous_id', 'email', 'phone', 'external_id'];

/** The settings connection a destination names: its key in the spec, its id and the type it must be. */
function connectionOf(
  d: SyncSpec['destination'],
):
  | { key: string; id: string; type: 'webhook' | 'storage' | 'meta_audience' | 'google_ads_audience' }
  | undefined {
  if ('webhook' in d) return { key: 'webhook', id: d.webhook.connection, type: 'webhook' };
  if ('files' in d) return { key: 'files', id: d.files.connection, type: 'storage' };
  if ('meta_audience' in d)
    return { key: 'meta_audience', id: d.meta_audience.connection, type: 'meta_audience' };
  if ('google_ads_audience' in d)
    return { key: 'google_ads_audience', id: d.google_ads_audience.connection, type: 'google_ads_audience' };
  return undefined;
}

/** The model as a FROM item: a query in parentheses, or a table/view reference. */
export function modelSource(model: string): string {
  const m = model.trim().replace(/;\s*$/, '');
  return /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*){1,2}$/.test(m) ? `\`${m}\`` : `(${m})`;
}

/** The model as a plain SELECT (what the dry run checks). */
export const modelSelect = (model: string): string => `SELECT * FROM ${modelSource(model)}`;

/** One change as a destination receives it. */
export interface Change {
  readonly n: number;
  readonly op: 'upsert' | 'delete';
  /** The primary key's columns; a deletion whose key the state does not keep has `{key_sha256}`. */
  readonly key: Readonly<Record<string, unknown>>;
  /** The row after `fields` (the mapping language), or the row as the model gave it; `{}` without one. */
  readonly data: Readonly<Record<string, unknown>>;
  /**
   * An audience member's deletion: the identifiers it was added with, hashed, as the state kept
   * them instead of the row (core/syncs/audience-members.ts). On an `audience` sync's upsert of a
   * member already sent: its kept key and consent (core/syncs/audience-events.ts).
   */
  readonly kept?: string;
  /**
   * Not sent: an unchanged row an earlier version's state kept whole, whose identifiers the state
   * keeps from now on instead (core/syncs/sync-sql.ts).
   */
  readonly restate?: true;
}

/**
 * A page of the changes table as changes, mapped, in change order. A page an earlier version
 * planned (no `__pk` column) names the key itself in `__key` and carries every row in `__row`.
 */
export function changesOf(spec: SyncSpec, rows: readonly Readonly<Record<string, unknown>>[]): Change[] {
  return rows
    .map((r) => {
      const text = (column: string) => {
        const v = r[column];
        return v === null || v === undefined ? undefined : String(v);
      };
      const row = text('__row');
      const parsed = row === undefined ? {} : (JSON.parse(row) as Record<string, unknown>);
      const data =
        spec.fields && row !== undefined
          ? applyMapping({ event: '', fields: spec.fields }, rowEvent(parsed, '')).payload
          : parsed;
      const key = '__pk' in r ? text('__pk') : text('__key');
      const kept = text('__kept');
      return {
        n: Number(r['__n']),
        op: r['__op'] === 'delete' ? ('delete' as const) : ('upsert' as const),
        key:
          key === undefined
            ? { key_sha256: text('__key') ?? '' }
            : (JSON.parse(key) as Record<string, unknown>),
        data,
        ...(kept === undefined ? {} : { kept }),
        ...(r['__op'] === 'restate' ? { restate: true as const } : {}),
      };
    })
    .sort((a, b) => a.n - b.n);
}

/** A row seen through the mapping language: columns are event data, `user_id` a context field. */
function rowEvent(row: Record<string, unknown>, time: string): StoredEvent {
  const user = row['user_id'];
  return {
    event_name: 'sync_row',
    event_id: '',
    event_time: time,
    ...(typeof user === 'string' ? { user_id: user } : {}),
    event_data: row,
  };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Where a files destination writes part `n` (1-based) of a run, and its manifest. */
export function filePaths(name: string, slot: string, runKey: string, format: 'jsonl' | 'csv') {
  const dir = `syncs/${name}/dt=${slot.slice(0, 10)}/run-${digest(runKey).slice(0, 16)}`;
  return {
    part: (n: number) => `${dir}/part-${String(n).padStart(5, '0')}.${format}`,
    success: `${dir}/_SUCCESS`,
  };
}

/** A part file's body: JSON lines, or CSV with a header from the union of the columns. */
export function fileBody(changes: readonly Change[], format: 'jsonl' | 'csv'): string {
  const rows: Record<string, unknown>[] = changes.map((c) =>
    c.op === 'delete' ? { _op: 'delete', ...c.key } : { _op: 'upsert', ...c.data },
  );
  if (format === 'jsonl') return rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown): string => {
    if (v === undefined || v === null) return '';
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    // Quoted when it holds a separator, a quote or a line break. A cell a spreadsheet would read
    // as a formula (OWASP's list: = + - @, TAB and CR first) starts with ' instead.
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\r\n]/.test(safe) || safe !== s ? `"${safe.replaceAll('"', '""')}"` : safe;
  };
  return `${[columns.map(cell).join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n')}\r\n`;
}

/** The events a topic destination publishes: deterministic ids (sync, key, slot), the slot as time. */
export function syncEvents(
  sync: SyncVersion,
  changes: readonly Change[],
  slot: string,
): { readonly body: Record<string, unknown>; readonly attributes: Record<string, string> }[] {
  const d = sync.spec.destination;
  if (!('topic' in d)) return [];
  return changes
    .filter((c) => c.op === 'upsert')
    .map((c) => {
      const user = c.data['user_id'];
      const { user_id: _, ...data } = c.data;
      return {
        body: {
          event_name: d.topic.event_name,
          event_id: digest(`Sync/${sync.name}\n${JSON.stringify(c.key)}\n${slot}`),
          event_time: slot,
          ...(typeof user === 'string' ? { user_id: user } : {}),
          ...data,
        },
        attributes: { origin: `Sync/${sync.name}`, hops: '1' },
      };
    });
}

/** What a webhook destination receives for one page. */
export function webhookBody(
  sync: SyncVersion,
  runKey: string,
  page: number,
  changes: readonly Change[],
): string {
  return JSON.stringify({
    sync: sync.name,
    version: sync.version,
    run_id: runKey,
    page,
    rows: changes.map((c) => ({ op: c.op, key: c.key, ...(c.op === 'upsert' ? { data: c.data } : {}) })),
  });
}

type CustomerMatchDestination = Extract<
  SyncSpec['destination'],
  { google_ads_audience: unknown }
>['google_ads_audience'];

/** Whether the sync, or the connection it names, says the advertiser accepted the Customer Match terms. */
function termsAccepted(d: CustomerMatchDestination, connections: readonly Connection[] | undefined): boolean {
  return (
    d.terms_of_service === 'accepted' ||
    (connections ?? []).some((c) => c.id === d.connection && c.terms_of_service === 'accepted')
  );
}

/** Where a google_ads_audience destination's list is, for the Customer Match requests. */
export function customerMatchTarget(
  d: CustomerMatchDestination,
  c: Readonly<Connection>,
): CustomerMatchTarget {
  return {
    ...(c.url ? { origin: c.url } : {}),
    operatingAccountId: d.operating_account_id,
    ...(d.login_account_id ? { loginAccountId: d.login_account_id } : {}),
    userListId: d.user_list_id,
    ...(termsAccepted(d, [c]) ? { termsAccepted: true } : {}),
  };
}

/** How a destination is named in `sync_runs`. */
export function destinationLabel(spec: SyncSpec): string {
  const d = spec.destination;
  if ('webhook' in d) return `webhook:${d.webhook.connection}`;
  if ('files' in d) return `files:${d.files.connection}`;
  if ('meta_audience' in d) return `meta_audience:${d.meta_audience.audience_id}`;
  if ('google_ads_audience' in d) return `google_ads_audience:${d.google_ads_audience.user_list_id}`;
  if ('audience' in d) return `audience:${d.audience.key}`;
  return `topic:${d.topic.topic ?? 'events'}`;
}

/**
 * What a webhook destination refused row by row: a 2xx answer may list rows it did not take,
 * `{"rejected": [{"key": {...}, "reason": "..."}]}` (by the key it was sent); those rows are not
 * committed and are retried by the next run. Anything else in the answer is ignored.
 */
export function webhookRejections(
  body: string,
  changes: readonly Change[],
): { readonly change: Change; readonly reason: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const list = (parsed as { rejected?: unknown } | null)?.rejected;
  if (!Array.isArray(list)) return [];
  // Keys compare whatever order the receiver wrote their columns in.
  const canon = (k: unknown) =>
    typeof k === 'object' && k !== null
      ? JSON.stringify(Object.entries(k).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : JSON.stringify(k);
  const byKey = new Map(changes.map((c) => [canon(c.key), c]));
  const out: { change: Change; reason: string }[] = [];
  for (const r of list) {
    const key = (r as { key?: unknown })?.key;
    const change = key === undefined ? undefined : byKey.get(canon(key));
    if (!change) continue;
    const reason = (r as { reason?: unknown }).reason;
    out.push({
      change,
      reason: typeof reason === 'string' ? reason.slice(0, 500) : 'rejected by the webhook',
    });
    byKey.delete(canon(key));
  }
  return out;
}
