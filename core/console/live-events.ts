/**
 * Live events (docs/console.md#live-events): what the gateway refused, as rows of the ops table
 * `gateway_refusals`, and the studio's queries that tail them beside the events stored a moment
 * later. Pure: the sampler decides which refusals become rows, the gateway hands them to a
 * writer (adapters/refusal-recorder.ts) through the same insertAll path on the emulators and on
 * Google Cloud, so no log reader is involved.
 *
 * Storage stays bounded whatever a flood of bad requests does: each instance writes at most
 * `perSecond` rows a second on average (a token bucket with `burst`), each kind of refusal
 * (status, credential, translator, reason) at most one row a second, and a row says how many
 * refusals it stands for (`represents`); partitions expire after REFUSALS_KEPT_MS.
 */
import { EGRESS_REFUSED } from '../egress/policy.ts';
import type { ErrorEnvelope } from '../errors.ts';
import { OPS_TABLES } from '../warehouse/warehouse.ts';

/**
 * The `code` of a live line that is not the gateway's: a call to a third party the egress gate
 * refused (core/egress/policy.ts), read from its `rejected` ledger row (#75).
 */
export const EGRESS_REFUSED_LINE = 'EGRESS_REFUSED';
/** The `source` of such a line: the destination whose call was refused. */
export const EGRESS_SOURCE_PREFIX = 'destination:';

/** How long refusal rows are kept: the table's partition expiry. */
export const REFUSALS_KEPT_MS = 30 * 86_400_000;

/** A refusal as the gateway knows it: never the body, never a secret. */
export interface RefusalEvent {
  readonly status: number;
  readonly code: string;
  readonly reason: string;
  readonly credential?: string | undefined;
  readonly translator?: string | undefined;
  readonly path: string;
  readonly size?: number | undefined;
  /** The answer's message, as the sender read it (refusalDetail). */
  readonly message?: string | undefined;
  /** The answer's field violations, `field: description` one a line (refusalDetail). */
  readonly fields?: string | undefined;
}

/** A row of `gateway_refusals` (core/warehouse/warehouse.ts gatewayRefusalColumns). */
export interface RefusalRow {
  readonly refused_at: string;
  readonly status: number;
  readonly code: string;
  readonly reason: string;
  readonly source: string;
  readonly credential: string | null;
  readonly translator: string | null;
  readonly path: string;
  readonly size: number | null;
  readonly represents: number;
  readonly instance: string;
  readonly message: string | null;
  readonly fields: string | null;
}

/** A refusal's message is cut to this many characters. */
export const REFUSAL_MESSAGE_MAX = 300;
/** At most this many field violations are kept per refusal, each cut to FIELD_LINE_MAX. */
export const REFUSAL_FIELDS_MAX = 10;
const FIELD_LINE_MAX = 200;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * A violation's description without the value the sender sent: the validator names it after
 * `, got ` (`must be one of a, b, got <value>`), and a row is never to hold the body.
 */
const withoutValue = (description: string): string => {
  const at = description.indexOf(', got ');
  return at < 0 ? description : description.slice(0, at);
};

/**
 * What a refusal row says of the answer beside its code: the error's message and its field
 * violations (`rows[0].value: expected number`), as the console shows an answer. Both are the
 * gateway's own texts, bounded; a value the validator quotes (`, got …`) is left out.
 */
export function refusalDetail(body: ErrorEnvelope): { message: string; fields?: string } {
  const violations = body.error.details.flatMap((d) => ('fieldViolations' in d ? d.fieldViolations : []));
  const lines = violations
    .slice(0, REFUSAL_FIELDS_MAX)
    .map((v) => cut(`${v.field}: ${withoutValue(v.description)}`, FIELD_LINE_MAX));
  if (violations.length > REFUSAL_FIELDS_MAX)
    lines.push(`… and ${violations.length - REFUSAL_FIELDS_MAX} more`);
  return {
    message: cut(body.error.message, REFUSAL_MESSAGE_MAX),
    ...(lines.length > 0 ? { fields: lines.join('\n') } : {}),
  };
}

export interface RefusalSampling {
  /** Rows an instance writes per second on average. */
  readonly perSecond: number;
  /** Rows it may write at once after a quiet spell. */
  readonly burst: number;
  /** One kind of refusal is written at most once per this many milliseconds. */
  readonly perKindMs: number;
  /** Kinds remembered at once (credentials a flood makes up are unbounded). */
  readonly maxKinds: number;
}

/**
 * 5 rows/s per instance: under a flood that never stops, 432,000 rows (about 100 MB) a day per
 * instance, dropped after 30 days; in normal traffic every refusal is a row.
 */
export const DEFAULT_REFUSAL_SAMPLING: RefusalSampling = Object.freeze({
  perSecond: 5,
  burst: 50,
  perKindMs: 1000,
  maxKinds: 10_000,
});

/** Where a request came from, as the live page groups it: the translator, else the credential. */
export const refusalSource = (r: Pick<RefusalEvent, 'credential' | 'translator'>): string =>
  r.translator ? `translator:${r.translator}` : (r.credential ?? '(anonymous)');

export interface RefusalSampler {
  /**
   * Whether this refusal becomes a row: 0 when it is left out (and counted), else how many
   * refusals the row stands for (itself and those of its kind left out since its last row).
   */
  admit(e: RefusalEvent, now: number): number;
}

/**
 * A signature that did not verify (`bad_signature`, or any refusal of a signed request): a probe
 * worth seeing. It is sampled apart from the rest, with a budget and kinds of its own, so a flood
 * of made-up tokens can neither use up its rows nor make it forget a kind's count (#75).
 */
export const isSignatureRefusal = (e: Pick<RefusalEvent, 'reason' | 'credential'>): boolean =>
  e.reason === 'bad_signature' || (e.credential?.startsWith('signature:') ?? false);

/**
 * A per-instance sampler (core state only: the caller owns the clock): signature refusals and the
 * rest each under their own bounds (`s`), so storage stays bounded at twice `perSecond`.
 */
export function createRefusalSampler(s: RefusalSampling = DEFAULT_REFUSAL_SAMPLING): RefusalSampler {
  const signatures = bucketSampler(s);
  const rest = bucketSampler(s);
  return { admit: (e, now) => (isSignatureRefusal(e) ? signatures : rest).admit(e, now) };
}

/** One token bucket and its kinds. */
function bucketSampler(s: RefusalSampling): RefusalSampler {
  let tokens = s.burst;
  let refilled = 0;
  /** Per kind: when its last row was written, and refusals left out since. */
  const kinds = new Map<string, { at: number; left: number }>();
  return {
    admit(e, now) {
      const key = `${e.status} ${e.credential ?? ''} ${e.translator ?? ''} ${e.reason}`;
      let kind = kinds.get(key);
      if (!kind) {
        // A flood of made-up credentials: forget every kind rather than grow without bound.
        if (kinds.size >= s.maxKinds) kinds.clear();
        kind = { at: Number.NEGATIVE_INFINITY, left: 0 };
        kinds.set(key, kind);
      }
      tokens = Math.min(s.burst, tokens + ((now - refilled) / 1000) * s.perSecond);
      refilled = now;
      if (now - kind.at < s.perKindMs || tokens < 1) {
        kind.left++;
        return 0;
      }
      tokens -= 1;
      const represents = kind.left + 1;
      kind.at = now;
      kind.left = 0;
      return represents;
    },
  };
}

/** The row of an admitted refusal. */
export function refusalRow(e: RefusalEvent, represents: number, at: number, instance: string): RefusalRow {
  return {
    refused_at: new Date(at).toISOString(),
    status: e.status,
    code: e.code,
    reason: e.reason,
    source: refusalSource(e),
    credential: e.credential ?? null,
    translator: e.translator ?? null,
    path: e.path,
    size: e.size ?? null,
    represents,
    instance,
    message: e.message ?? null,
    fields: e.fields ?? null,
  };
}

/** What the live page asks for: a window back from now, and an optional filter. */
export interface LiveQuery {
  /** RFC 3339: rows at or after it. */
  readonly since: string;
  /** Text matched (case-insensitively) against source, credential, translator, reason, event name. */
  readonly filter?: string;
  /** Only refused requests or only stored events; both when absent. */
  readonly only?: 'refused' | 'accepted';
}

/** Rows each list returns at most: a tail, not a report. */
export const LIVE_ROWS = 100;
/** How far back the page may look: the tail is recent by design (and its bytes stay small). */
export const LIVE_MAX_WINDOW_MS = 86_400_000;

/** Why a live request is refused (field, description), or undefined when it is fine. */
export function liveProblem(
  body: Record<string, unknown>,
  now: number,
): { field: string; description: string } | undefined {
  const since = body['since'];
  if (typeof since !== 'string' || Number.isNaN(Date.parse(since)))
    return { field: 'since', description: 'must be an RFC 3339 time' };
  if (now - Date.parse(since) > LIVE_MAX_WINDOW_MS)
    return { field: 'since', description: 'must be within the last 24 hours' };
  const filter = body['filter'];
  if (filter !== undefined && (typeof filter !== 'string' || filter.length > 200))
    return { field: 'filter', description: 'must be text of at most 200 characters' };
  const only = body['only'];
  if (only !== undefined && only !== 'refused' && only !== 'accepted')
    return { field: 'only', description: 'must be refused or accepted' };
  return undefined;
}

/**
 * The two tails as SQL with named parameters @since and @filter (lower-cased text; empty
 * matches all). The refused tail holds what the gateway refused and, beside it, every call to a
 * third party the egress gate refused: the ledger's `rejected` rows whose reason is the gate's
 * (`egress refused: <why>`), as lines with the code EGRESS_REFUSED, the source
 * `destination:<id>`, the path `event:<event_id>` and no HTTP status (nothing was sent).
 * `events` is the quoted events table, `refusals` the quoted ops table, `deliveries` the quoted
 * ledger. Stored events are read by received_at, pruned on event_time a day further back, so an
 * event whose own time is older than that is not in the tail (the explorer finds it).
 */
export function liveSql(
  events: string,
  refusals: string,
  deliveries: string,
): { refused: string; accepted: string } {
  const matches = (cols: readonly string[]) =>
    `(@filter = '' OR ${cols.map((c) => `STRPOS(LOWER(IFNULL(${c}, '')), @filter) > 0`).join(' OR ')})`;
  return {
    refused: [
      'SELECT refused_at, status, code, reason, source, credential, translator, path, size, represents, message, fields FROM (',
      '  SELECT refused_at, status, code, reason, source, credential, translator, path, size, represents, message, fields',
      `  FROM ${refusals}`,
      `  WHERE refused_at >= TIMESTAMP(@since) AND ${matches(['source', 'credential', 'translator', 'reason', 'message', 'fields'])}`,
      '  UNION ALL',
      `  SELECT recorded_at AS refused_at, CAST(NULL AS INT64) AS status, '${EGRESS_REFUSED_LINE}' AS code, reason,`,
      `    CONCAT('${EGRESS_SOURCE_PREFIX}', destination) AS source, CAST(NULL AS STRING) AS credential,`,
      `    CAST(NULL AS STRING) AS translator, CONCAT('event:', event_id) AS path, CAST(NULL AS INT64) AS size,`,
      '    1 AS represents, reason AS message, CAST(NULL AS STRING) AS fields',
      `  FROM ${deliveries}`,
      `  WHERE recorded_at >= TIMESTAMP(@since) AND status = 'rejected' AND STARTS_WITH(reason, '${EGRESS_REFUSED}')`,
      `    AND ${matches([`CONCAT('${EGRESS_SOURCE_PREFIX}', destination)`, 'reason', 'event_name'])}`,
      ')',
      `ORDER BY refused_at DESC LIMIT ${LIVE_ROWS}`,
    ].join('\n'),
    accepted: [
      "SELECT event_id, event_name, received_at, stored_at, IFNULL(JSON_VALUE(attributes, '$.translator'), '') AS translator, source",
      `FROM ${events}`,
      'WHERE event_time >= TIMESTAMP_SUB(TIMESTAMP(@since), INTERVAL 1 DAY) AND received_at >= TIMESTAMP(@since)',
      `  AND ${matches(['source', 'event_name', "JSON_VALUE(attributes, '$.translator')"])}`,
      `ORDER BY received_at DESC LIMIT ${LIVE_ROWS}`,
    ].join('\n'),
  };
}

/** The ops table's name, for callers that build its reference. */
export const REFUSALS_TABLE = OPS_TABLES.gatewayRefusals;
