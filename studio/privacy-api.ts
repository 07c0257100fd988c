/**
 * The studio's privacy actions on the admin API (docs/privacy.md, docs/studio.md#privacy):
 * - `erasures` `{identifiers}` (admins): an erasure request, recorded exactly as `eventbus erase`
 *   records it (`erasures/<id>.json` in the registry bucket, created only if absent) with the
 *   caller as `requested_by`; the scheduler's erasure job runs it (functions/schedule/erasures.ts).
 *   Answered 201 at once: the erasure itself takes passes, minutes to hours.
 * - `erasure-status` `{erasure_id?}` (read): one request's audit row (the ops table `erasures`),
 *   or the newest ones. That table holds hashes, never identifiers.
 * - `export-person` `{identifiers}` (admins): an access request: every stored row about the
 *   person as JSON Lines, a file to download, through the CLI's queries and line format
 *   (core/privacy/export-person.ts), and a row in the ops table `exports` saying who asked.
 *   Refused under `pii.column_security` (EXPORT_UNDER_COLUMN_SECURITY): the studio reads PII masked.
 */

import { plainValue } from '../adapters/user-sql.ts';
import { apiError, withViolations } from '../core/errors.ts';
import { modelPlan } from '../core/models/models.ts';
import { SESSION_TABLES } from '../core/models/sessions.ts';
import { OPS_DATASET } from '../core/plan.ts';
import { ERASURE_REQUESTS_PREFIX, newErasureRequest, personIdentifiers } from '../core/privacy/erasure.ts';
import {
  type ExportQuery,
  exportAuditSql,
  exportLine,
  exportPersonQueries,
  newExportId,
} from '../core/privacy/export-person.ts';
import { expandSql, personIdsSql, rawNeedles } from '../core/privacy/person.ts';
import { fail, ok, refuse, type Step } from '../core/step.ts';
import type { FieldViolation } from '../core/validation.ts';
import { PRIVACY_TABLES } from '../core/warehouse/privacy-audit.ts';
import type { Action } from './auth.ts';
import type { CreatorApiOptions, Row } from './creator-api.ts';
import type { OpsApiOptions } from './ops-api.ts';
import type { ReplayApiOptions } from './replays-api.ts';
import { invalidField, notConfigured } from './request.ts';

/**
 * The privacy actions and the role each needs: erasing and exporting a person are an admin's
 * (the role a resource's DELETE needs), reading the audit anyone's with studio access.
 */
export const PRIVACY_ACTIONS: Readonly<Record<string, Action>> = Object.freeze({
  erasures: 'delete',
  'erasure-status': 'read',
  'export-person': 'delete',
});

/** What the privacy actions answer: JSON (with its status), or a file of JSON Lines. */
export type PrivacyAnswer =
  | { readonly json: unknown; readonly status?: number }
  | { readonly text: string; readonly headers: Readonly<Record<string, string>> };

export type PrivacyApiOptions = Pick<ReplayApiOptions, 'registry' | 'settings' | 'warehouseRef'> &
  Pick<CreatorApiOptions, 'warehouse'> &
  Pick<OpsApiOptions, 'opsTable'>;

/** The most identifiers one request names (one person: a handful), and their longest. */
const MAX_IDENTIFIERS = 50;
const MAX_IDENTIFIER_CHARS = 512;
/** How many audit rows `erasure-status` gives without an id. */
const STATUS_ROWS = 50;
const ERASURE_ID = /^er-\d{8}-[0-9a-f]{8}$/;

/**
 * Why the studio runs no access request under column-level security (docs/privacy.md, "Access
 * requests"): its account is a Masked Reader of the `pii` tag, so the person's data would come back
 * as SHA-256 and the payload search would find nothing; raw personal data stays with pii_readers.
 */
export const EXPORT_UNDER_COLUMN_SECURITY =
  'an access request under pii.column_security: the studio reads the personal-data columns masked ' +
  '(its account is a Masked Reader of the pii tag), so e-mails, phones, names, IPs and refused ' +
  "payloads would come back as SHA-256 and the payload search would find nothing. Run 'eventbus " +
  "export-person <identifier>… --env <environment> --out <file>' as a member of pii_readers: it " +
  'reads the columns raw and records the same row in eventbus_ops.exports';

const PENDING =
  "the scheduler's erasure job removes the person from every table within minutes; rows still in BigQuery's streaming buffer (up to ~90 minutes after they arrived) go in a later pass";

export async function privacyAction(
  o: PrivacyApiOptions,
  action: string,
  raw: unknown,
  author: string,
): Promise<Step<PrivacyAnswer>> {
  const body = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  if (action === 'erasures') return erase(o, body, author);
  if (action === 'erasure-status') return erasureStatus(o, body);
  if (action === 'export-person') return exportPerson(o, body, author);
  return fail('NOT_FOUND', { resource: `/v1/admin/${action}` });
}

/** The request's identifiers as strings, or the 400 naming what is wrong with the list. */
function givenIdentifiers(body: Record<string, unknown>): Step<string[]> {
  const given = body['identifiers'];
  if (
    !Array.isArray(given) ||
    given.length > MAX_IDENTIFIERS ||
    !given.every((g): g is string => typeof g === 'string' && g.length <= MAX_IDENTIFIER_CHARS)
  )
    return invalidField(
      'identifiers',
      `must be a list of at most ${MAX_IDENTIFIERS} identifiers (kind:value or a person id), each a string of at most ${MAX_IDENTIFIER_CHARS} characters`,
    );
  return ok(given);
}

/** 400 INVALID_REQUEST carrying the core's violations (Google's BadRequest details). */
function invalid(violations: readonly FieldViolation[]): Step<never> {
  const detail = violations.map((v) => `${v.field} ${v.description}`).join('; ');
  return refuse(withViolations(apiError('INVALID_REQUEST', { detail }), violations));
}

async function erase(
  o: PrivacyApiOptions,
  body: Record<string, unknown>,
  author: string,
): Promise<Step<PrivacyAnswer>> {
  const given = givenIdentifiers(body);
  if (!given.ok) return given;
  const made = newErasureRequest(given.value, author, new Date());
  if ('violations' in made) return invalid(made.violations);
  const { request } = made;
  // As the CLI writes it (cli/commands/erase.ts): a new object, never over another.
  await o.registry.bucket
    .file(`${ERASURE_REQUESTS_PREFIX}${request.erasure_id}.json`)
    .save(JSON.stringify(request), {
      resumable: false,
      contentType: 'application/json',
      preconditionOpts: { ifGenerationMatch: 0 },
    });
  return ok({
    status: 201,
    json: {
      erasure_id: request.erasure_id,
      status: 'recorded',
      requested_by: request.requested_by,
      requested_at: request.requested_at,
      pending: PENDING,
    },
  });
}

async function erasureStatus(
  o: PrivacyApiOptions,
  body: Record<string, unknown>,
): Promise<Step<PrivacyAnswer>> {
  if (!o.warehouse) return notConfigured('it has no warehouse');
  if (!o.opsTable) return notConfigured('it has no ops dataset');
  const id = body['erasure_id'];
  if (id !== undefined && (typeof id !== 'string' || !ERASURE_ID.test(id)))
    return invalidField('erasure_id', 'must be an erasure id (er-<yyyymmdd>-<8 hex>)');
  const columns =
    'erasure_id, status, requested_at, requested_by, identifier_hashes, removed, waiting, platforms, passes, updated_at, completed_at';
  const from = `FROM ${o.opsTable(PRIVACY_TABLES.erasures)}`;
  const rows =
    id === undefined
      ? await o.warehouse.query(
          `SELECT ${columns} ${from} ORDER BY requested_at DESC, erasure_id DESC LIMIT ${STATUS_ROWS}`,
          {},
        )
      : await o.warehouse.query(`SELECT ${columns} ${from} WHERE erasure_id = @id`, { id });
  const erasures = rows.map((r) => plainValue(r) as Row);
  if (id === undefined || erasures.length > 0) return ok({ json: { erasures } });
  // Recorded but not yet run: the request object is there, its first pass has not written a row.
  const [exists] = await o.registry.bucket.file(`${ERASURE_REQUESTS_PREFIX}${id}.json`).exists();
  if (!exists) return fail('NOT_FOUND', { resource: `erasure ${id}` });
  return ok({ json: { erasures: [{ erasure_id: id, status: 'recorded' }] } });
}

async function exportPerson(
  o: PrivacyApiOptions,
  body: Record<string, unknown>,
  author: string,
): Promise<Step<PrivacyAnswer>> {
  const given = givenIdentifiers(body);
  if (!given.ok) return given;
  const { identifiers, violations } = personIdentifiers(given.value);
  if (violations.length > 0) return invalid(violations);
  const w = o.warehouse;
  if (!w || !o.warehouseRef) return notConfigured('it has no warehouse');
  if (!o.opsTable) return notConfigured('it has no ops dataset');
  if (o.settings?.pii?.column_security === true) return notConfigured(EXPORT_UNDER_COLUMN_SECURITY);
  const now = new Date();
  const identityGraph = o.settings
    ? modelPlan(o.settings).tables.some((t) => t.name === SESSION_TABLES.identityMap)
    : false;
  const options = {
    ...o.warehouseRef,
    identityGraph,
    ops: OPS_DATASET,
    actionRuns: o.settings?.experimental?.rules === true,
  };
  // Widened as an erasure widens them (the graph, the person's trusted events), as the CLI does.
  const found = await w.query(expandSql(options), { identifiers: [...identifiers] });
  const widened = [...new Set([...identifiers, ...found.map((r) => String(r['identifier']))])];
  const raw = await needles(w, options, widened, rawNeedles(given.value));
  const counts: Record<string, number> = {};
  const lines: string[] = [];
  for (const q of exportPersonQueries(options, widened, raw ?? [])) {
    const rows = needless(q, raw) ? [] : await w.query(q.sql, paramsOf(q));
    counts[q.table] = rows.length;
    for (const r of rows) lines.push(`${exportLine(q, plainValue(r))}\n`);
  }
  const exportId = newExportId(now);
  const audit = exportAuditSql(o.opsTable(PRIVACY_TABLES.exports), {
    export_id: exportId,
    requested_at: now.toISOString(),
    requested_by: author,
    identifiers,
    rows: counts,
  });
  // Recorded before the file is given: no export leaves without its audit row.
  await w.query(audit.sql, audit.params);
  // An empty file would not say whether anything was looked at: one line says nothing is held.
  if (lines.length === 0)
    lines.push(`${JSON.stringify({ nothing_held: true, identifiers: identifiers.length })}\n`);
  return ok({
    text: lines.join(''),
    headers: {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${exportId}.jsonl"`,
      'cache-control': 'no-store',
    },
  });
}

const named = (q: ExportQuery, param: string) => new RegExp(`@${param}\\b`).test(q.sql);

/**
 * A query that can find nothing, not sent: one over `@raw` when the person has no needle, and one
 * over `@patterns` when none is long enough to look for (an unknown person id, `user_id:ab`). An
 * empty array parameter is also one BigQuery's client refuses untyped: it was a 503 (#75).
 */
const needless = (q: ExportQuery, raw: readonly string[] | undefined): boolean =>
  (raw === undefined && (named(q, 'raw') || named(q, 'patterns'))) ||
  (q.params['patterns']?.length === 0 && named(q, 'patterns'));

/** A query's parameters, only those its SQL names. */
const paramsOf = (q: ExportQuery): Record<string, string[]> =>
  Object.fromEntries(Object.entries(q.params).filter(([k]) => named(q, k)));

/**
 * The queries' `@raw` without an empty array: the studio's query access passes no parameter
 * types, and Google's client cannot send an empty array untyped. With no e-mail or phone given,
 * `@raw` becomes the value of one of the person's own identifiers, a needle the refused-payload
 * query already looks for, so no result changes; undefined when the person has no identifier at
 * all (person ids alone, unknown to the graph): that query has no needle and finds nothing.
 */
async function needles(
  w: NonNullable<PrivacyApiOptions['warehouse']>,
  options: { project: string; dataset: string; identityGraph: boolean },
  identifiers: readonly string[],
  raw: string[],
): Promise<string[] | undefined> {
  if (raw.length > 0) return raw;
  const valueIn = (id: string) => id.slice(id.indexOf(':') + 1);
  const own = identifiers.find((i) => i.includes(':'));
  if (own) return [valueIn(own)];
  const rows = await w.query(
    `${personIdsSql(options.project, options.dataset, options.identityGraph)}\nSELECT identifier FROM ids LIMIT 1`,
    { identifiers: [...identifiers] },
  );
  const found = rows[0]?.['identifier'];
  return typeof found === 'string' ? [valueIn(found)] : undefined;
}
