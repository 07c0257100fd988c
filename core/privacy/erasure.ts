/**
 * Erasure of stored personal data (issue #61, docs/privacy.md "Erasure"): what a request is, the
 * hashes it leaves behind, and the DML that removes one person from every table the product
 * writes. Pure: the SQL and its parameters; the scheduler's erasure job (functions/schedule/erasures.ts)
 * runs it, pass after pass, until BigQuery's streaming buffer lets every statement through.
 *
 * A request names a person by identifiers (`kind:value`, as `erasureIdentifier` reads them). Its
 * first pass widens them once — the identity graph's person, and every identifier seen in the same
 * stored event (one hop) — and keeps the widened list in the request object until it completes.
 * Typed tables (`events`, the models) match identifiers by column; free-form tables (refused
 * payloads, refusals, sync failures, rule runs, sync state) match the identifiers' values as whole
 * tokens anywhere in the row's JSON. What is kept afterwards is only the second-order hash of each
 * identifier (SHA-256 of `kind:value`, an e-mail's value being its own SHA-256: `identifierHash`),
 * never a value or the SHA-256 platforms receive.
 */

import { randomUUID } from 'node:crypto';
import { erasureIdentifier, IDENTIFIER_KINDS } from '../models/identity-graph.ts';
import { SESSION_TABLES } from '../models/sessions.ts';
import { erasureHash } from '../suppression/erased.ts';
import { syncTables } from '../syncs/sync-sql.ts';
import { modelSource } from '../syncs/syncs.ts';
import type { FieldViolation } from '../validation.ts';
import { PRIVACY_TABLES } from '../warehouse/privacy-audit.ts';
import { OPS_TABLES, TABLES, tableRef } from '../warehouse/warehouse.ts';
import { EVENT_IDENTIFIER, matchesJson, rawNeedles } from './person.ts';

/** Where pending requests wait, in the registry bucket: one object per request. */
export const ERASURE_REQUESTS_PREFIX = 'erasures/';
/** The suppression list (second-order hashes), in the registry bucket: read by store and forward. */
export const SUPPRESSION_OBJECT = 'privacy/erased.json';

/** A platform told to delete the person (core/privacy/platform-erasure.ts sends them). */
export interface PlatformNotice {
  readonly platform: string;
  readonly target: string;
  readonly status: 'sent' | 'failed' | 'unsupported';
  readonly detail: string;
  readonly at: string;
}

/** A notice's platform and target, the unit a failed deletion is asked again by. */
export const noticeKey = (n: Pick<PlatformNotice, 'platform' | 'target'>): string =>
  `${n.platform} ${n.target}`;

/** The targets whose last notice failed. */
export const failedTargets = (notices: readonly PlatformNotice[]): Set<string> =>
  new Set(notices.filter((n) => n.status === 'failed').map(noticeKey));

/**
 * How many times in all the platforms that failed are asked, a pass apart with the passes'
 * backoff (1, 2, 4, 8, 15 minutes): after that the request completes as `complete_with_failures`,
 * its failed notices in the audit row for someone to follow up by hand.
 */
export const PLATFORM_ATTEMPTS = 6;

/** An audit row's status: pending until every table is clean; then complete, or complete with platform failures. */
export type ErasureStatus = 'pending' | 'complete' | 'complete_with_failures';

/** An erasure request, as the request object keeps it while it is pending. */
export interface ErasureRequest {
  readonly erasure_id: string;
  readonly requested_at: string;
  readonly requested_by: string;
  /** As the identity graph writes them: e-mails and phones as their SHA-256 hex; or person ids. */
  readonly identifiers: readonly string[];
  /** Texts to find besides the identifiers' values: an e-mail or phone as the person gave it. */
  readonly raw: readonly string[];
  /** The identifiers widened by the first pass (graph and one hop), kept until completion. */
  readonly expanded?: readonly string[];
  /** Rows removed so far, by table (`dataset.table`). */
  readonly removed?: Readonly<Record<string, number>>;
  /** Tables the last pass could not change yet (rows in the streaming buffer). */
  readonly waiting?: readonly string[];
  readonly platforms?: readonly PlatformNotice[];
  /** How many times the platforms were asked (the first time and each retry of the failed ones). */
  readonly platform_attempts?: number;
  readonly passes?: number;
  /** When the first pass published the suppression list with this request's hashes. */
  readonly suppressed_at?: string;
  readonly next_pass_at?: string;
}

/**
 * A person's identifiers as given (`kind:value`, or a person id) in the graph's form, or the
 * violations naming each that is not one.
 */
export function personIdentifiers(given: readonly string[]): {
  readonly identifiers: string[];
  readonly violations: FieldViolation[];
} {
  const violations: FieldViolation[] = [];
  const out: string[] = [];
  given.forEach((g, i) => {
    const identifier = erasureIdentifier(g);
    if (identifier) out.push(identifier);
    else
      violations.push({
        field: `identifiers[${i}]`,
        description: `${g}: an identifier is kind:value (anonymous_id, user_id, email or phone) or a person id (64 hex characters)`,
      });
  });
  if (given.length === 0)
    violations.push({ field: 'identifiers', description: 'name the person: at least one identifier' });
  return { identifiers: out, violations };
}

/** A new erasure request: its id, who asked and when, and what names the person. */
export function newErasureRequest(
  given: readonly string[],
  by: string,
  now: Date,
): { readonly request: ErasureRequest } | { readonly violations: FieldViolation[] } {
  const { identifiers, violations } = personIdentifiers(given);
  if (violations.length > 0) return { violations };
  return {
    request: {
      erasure_id: `er-${now.toISOString().slice(0, 10).replaceAll('-', '')}-${randomUUID().slice(0, 8)}`,
      requested_at: now.toISOString(),
      requested_by: by,
      identifiers,
      raw: rawNeedles(given),
    },
  };
}

/** Seconds before a pass that met the streaming buffer runs again: 1, 2, 4, 8, then every 15 minutes. */
export function retryDelayMs(passes: number): number {
  return Math.min(15, 2 ** Math.max(0, passes - 1)) * 60_000;
}

/** The hashes a request leaves: one per identifier of the person (person ids are not kept). */
export function requestHashes(request: ErasureRequest): string[] {
  const ids = request.expanded ?? request.identifiers;
  return [...new Set(ids.filter((i) => i.includes(':')).map(erasureHash))].sort();
}

/** What the statements work on. */
export interface ErasureOptions {
  readonly project: string;
  readonly dataset: string;
  readonly ops: string;
  /** The identity graph (the models) exists. */
  readonly identityGraph: boolean;
  /** `action_runs` exists (rules on). */
  readonly actionRuns: boolean;
  /** The registry's syncs: their state tables hold what they sent. */
  readonly syncs: readonly {
    readonly name: string;
    readonly model: string;
    readonly primary_key: readonly string[];
  }[];
}

/**
 * One statement of a pass: `table` is how the audit names it (`dataset.table`); `events` marks the
 * statements that find the person's rows through their stored events, which must run before the
 * events go; `optional` tables may not exist yet (a sync's tables appear with its first run).
 */
export interface ErasureStatement {
  readonly table: string;
  readonly sql: string;
  readonly beforeEvents?: boolean;
  readonly optional?: boolean;
}

/** The parameters every statement takes: `@identifiers` (widened) and `@patterns`. */
export const ERASURE_PARAM_TYPES = { identifiers: ['STRING'], patterns: ['STRING'] } as const;

/**
 * A pass's statements, in order: what is found through the person's events first (sync state by
 * the keys their model gives the person, hook failures and rule runs by event), then the events,
 * then the free-form tables, then the models (identity graph and sessions, whose erasure also
 * records the hashes in `identity_erasures` so no model run brings the person back).
 */
export function erasureStatements(options: ErasureOptions): ErasureStatement[] {
  const ref = (t: string) => tableRef(options.project, options.dataset, t);
  const opsRef = (t: string) => tableRef(options.project, options.ops, t);
  // BigQuery's DML takes no leading WITH: the widened identifiers are the parameter itself.
  const eventsMatch = IDENTIFIER_KINDS.map((k) => `${EVENT_IDENTIFIER[k]} IN UNNEST(@identifiers)`).join(
    ' OR ',
  );
  const personEvents = `SELECT event_id FROM ${ref(TABLES.events)} WHERE ${eventsMatch}`;
  const named = (dataset: string, t: string) => `${dataset}.${t}`;
  const out: ErasureStatement[] = [];
  for (const sync of options.syncs) {
    const t = syncTables(`\`${options.project}\`.${options.ops}`, sync.name);
    const pk = `TO_JSON_STRING(STRUCT(${sync.primary_key.map((k) => `m.${k}`).join(', ')}))`;
    const keys = `SELECT TO_HEX(SHA256(${pk})) FROM ${modelSource(sync.model)} AS m WHERE ${matchesJson('TO_JSON_STRING(m)')}`;
    for (const [table, extra] of [
      [t.state, ` OR (__row IS NOT NULL AND ${matchesJson('__row')})`],
      [t.snapshot, ''],
      [t.changes, ` OR ${matchesJson('TO_JSON_STRING(c)')}`],
    ] as const) {
      out.push({
        table: table.replace(/^`[^`]*`\./, ''),
        sql: `DELETE FROM ${table} AS c WHERE __key IN (${keys})${extra}`,
        beforeEvents: true,
        optional: true,
      });
    }
  }
  const ofEvents = (table: string) => ({
    table: named(options.dataset, table),
    sql: `DELETE FROM ${ref(table)} WHERE event_id IN (${personEvents})`,
    beforeEvents: true,
  });
  out.push(ofEvents(TABLES.hookFailures));
  if (options.actionRuns) out.push(ofEvents(TABLES.actionRuns));
  out.push({
    table: named(options.dataset, TABLES.events),
    sql: `DELETE FROM ${ref(TABLES.events)} WHERE ${eventsMatch}`,
  });
  const freeForm = (dataset: string, table: string, r: string) => ({
    table: named(dataset, table),
    sql: `DELETE FROM ${r} AS t WHERE ${matchesJson('TO_JSON_STRING(t)')}`,
  });
  out.push(freeForm(options.dataset, TABLES.invalidEvents, ref(TABLES.invalidEvents)));
  if (options.actionRuns) out.push(freeForm(options.dataset, TABLES.actionRuns, ref(TABLES.actionRuns)));
  out.push(freeForm(options.ops, OPS_TABLES.gatewayRefusals, opsRef(OPS_TABLES.gatewayRefusals)));
  out.push(freeForm(options.ops, OPS_TABLES.syncFailedRows, opsRef(OPS_TABLES.syncFailedRows)));
  if (options.identityGraph) out.push(...modelStatements(options));
  return out;
}

/** The models' part: sessions, identity_map, identity_merges, and the hashes in identity_erasures. */
function modelStatements(options: ErasureOptions): ErasureStatement[] {
  const ref = (t: string) => tableRef(options.project, options.dataset, t);
  const named = (t: string) => `${options.dataset}.${t}`;
  const map = ref(SESSION_TABLES.identityMap);
  const visitors =
    "SELECT SUBSTR(id, STRPOS(id, ':') + 1) FROM UNNEST(@identifiers) AS id WHERE STARTS_WITH(id, 'anonymous_id:') OR STARTS_WITH(id, 'user_id:')";
  const persons = `SELECT person_id FROM ${map} WHERE identifier IN UNNEST(@identifiers)`;
  return [
    {
      table: named(SESSION_TABLES.sessions),
      sql: `DELETE FROM ${ref(SESSION_TABLES.sessions)} WHERE visitor_id IN (${visitors}) OR user_id IN (${visitors})`,
    },
    {
      table: named(SESSION_TABLES.identityMerges),
      sql: `DELETE FROM ${ref(SESSION_TABLES.identityMerges)} WHERE current_person_id IN (${persons}) OR old_person_id IN (${persons})`,
    },
    {
      table: named(SESSION_TABLES.identityMap),
      sql: `DELETE FROM ${map} WHERE identifier IN UNNEST(@identifiers) OR person_id IN (${persons})`,
    },
    {
      table: named(SESSION_TABLES.erasures),
      sql: [
        `INSERT INTO ${ref(SESSION_TABLES.erasures)} (identifier_hash, erased_at)`,
        'SELECT DISTINCT TO_HEX(SHA256(id)), CURRENT_TIMESTAMP() FROM UNNEST(@identifiers) AS id',
        `WHERE STRPOS(id, ':') > 0 AND TO_HEX(SHA256(id)) NOT IN (SELECT identifier_hash FROM ${ref(SESSION_TABLES.erasures)})`,
      ].join('\n'),
    },
  ];
}

/** The audit row's upsert (`erasures`, ops dataset): by erasure_id, each pass. */
export function auditSql(project: string, ops: string): string {
  const t = tableRef(project, ops, PRIVACY_TABLES.erasures);
  return [
    `MERGE ${t} AS a USING (SELECT @erasure_id AS erasure_id) AS r ON a.erasure_id = r.erasure_id`,
    'WHEN MATCHED THEN UPDATE SET status = @status, removed = @removed, waiting = @waiting, platforms = @platforms,',
    '  identifier_hashes = @hashes, passes = @passes, updated_at = CURRENT_TIMESTAMP(),',
    "  completed_at = IF(@status != 'pending', CURRENT_TIMESTAMP(), NULL)",
    'WHEN NOT MATCHED THEN INSERT (erasure_id, requested_at, requested_by, identifier_hashes, status, removed,',
    '  waiting, platforms, passes, updated_at, completed_at)',
    '  VALUES (@erasure_id, TIMESTAMP(@requested_at), @requested_by, @hashes, @status, @removed, @waiting,',
    "  @platforms, @passes, CURRENT_TIMESTAMP(), IF(@status != 'pending', CURRENT_TIMESTAMP(), NULL))",
  ].join('\n');
}

/** The audit's parameter types (arrays may be empty). */
export const AUDIT_PARAM_TYPES = { hashes: ['STRING'], waiting: ['STRING'] } as const;

/** The suppression list: every hash any erasure recorded. */
export function suppressionSql(project: string, ops: string): string {
  const t = tableRef(project, ops, PRIVACY_TABLES.erasures);
  return `SELECT DISTINCT h FROM ${t}, UNNEST(identifier_hashes) AS h ORDER BY h`;
}
