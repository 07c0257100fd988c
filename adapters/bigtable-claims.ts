/**
 * The claim store (core/claims/claim-store.ts) on Cloud Bigtable (#97; docs/delivery.md, "Claims
 * in Bigtable"): one row per claim in one table, row key `<space>#<id>`, ONE cell in one column
 * family (CLAIM_FAMILY, whose GC rule drops cells CLAIM_MAX_AGE_SECONDS after they were written),
 * column `r`, its value `<token> <expiry> <fields>` (one space after each but the last):
 *
 * - the token: the version, 128 random bits in 32 lowercase hex digits, new with every write
 *   (never a timestamp: two writes in one millisecond still differ). First, so "at this version"
 *   is a value regex anchored at the value's start;
 * - the expiry: epoch milliseconds in decimal. Bigtable's garbage collection is eventual, so it
 *   decides when a claim stops counting, as `expire_at` does in Firestore;
 * - the fields: one JSON object of flat values (the rest of the value, spaces and all).
 *
 * One cell, not three: Bigtable stores every cell with its row key, family, qualifier and
 * timestamp, so three cells stored the ~70-byte key three times (test/slow/bill-counters.test.ts
 * measures the row; core/deploy/claim-stores.ts prices it).
 *
 * The old form: rows written before, three cells `v` (the token alone), `e` (the expiry), `f` (the
 * fields), live 7 days after an upgrade. They read as claims, and a replace or release at their
 * token matches them; a replace deletes the row and writes the one cell.
 *
 * Every write is one CheckAndMutateRow, atomic for its row:
 *
 * - create: predicate "the row has a cell"; not matched → the false mutations write the claim's
 *   cell (created); matched → the row is read and returned `held` (read again if it went meanwhile);
 * - replace / release: predicate "a cell holds this token": the newest cell of each column, then
 *   an interleave of two chains, a qualifier regex `r` with a value regex `<token>\x20\C*` and a
 *   qualifier regex `v` with a value regex of the token whole (RE2, which must match the whole
 *   value), so the old form's `e` and `f` cells can never pass → the true mutations delete the
 *   row and write the new cell / delete the row. Not matched: someone else's now (undefined /
 *   false).
 * - read: ReadRows of the one key, newest cell of each column.
 *
 * A row this code could not have written (a cell of another column, cells of both forms, no
 * version, no expiry, JSON that is not flat values) reads `malformed`, with why, at the token of
 * its `r` cell, else of its `v` cell (which the predicate matches alike). When it has no token at
 * all, its version is UNVERSIONED, and a replace at it matches only a row that still has cells
 * and no token in either form (a `condition` filter), so it is repaired from the claim store
 * alone, as in Firestore.
 *
 * Transport: gRPC over our own node:http2 client (adapters/grpc-unary.ts; ReadRows read whole as
 * a server stream), the messages encoded by hand (adapters/bigtable-wire.ts): the functions that
 * use claims are cold-started bundles, and `@google-cloud/bigtable` loads OpenTelemetry and Cloud
 * Monitoring. The data API does map its methods to HTTP (bigtable.proto's google.api.http:
 * `POST /v2/{table_name}:checkAndMutateRow`, `:readRows`), but the twin (emulators/bigtable)
 * serves gRPC only, and gRPC is the path Google's own clients take, so it is the one tested end
 * to end. `bigtable.googleapis.com:443` over TLS with
 * application-default credentials, or BIGTABLE_EMULATOR_HOST (`host:port`, plaintext, no
 * credentials). A refusal or a broken connection rejects: the caller fails the push.
 */
import { randomBytes } from 'node:crypto';
import { GoogleAuth } from 'google-auth-library';
import {
  type ClaimFields,
  type ClaimKey,
  type ClaimStore,
  type CreateAnswer,
  checkClaimKey,
  type HeldClaim,
} from '../core/claims/claim-store.ts';
import { CLAIM_FAMILY, CLAIM_MAX_AGE_SECONDS } from '../core/claims/claims-plan.ts';
import {
  decodeCheckAndMutateRow,
  decodeReadRows,
  encodeCheckAndMutateRow,
  encodeReadRow,
  type Mutation,
  type ReadCell,
  type RowFilter,
  re2Literal,
} from './bigtable-wire.ts';
import { cachedCredentials, type HeaderSource } from './google-credentials.ts';
import { createUnaryClient, type UnaryClient, type UnaryClientOptions } from './grpc-unary.ts';

// The family and its GC rule's max age are the plan's too (core/claims/claims-plan.ts).
export { CLAIM_FAMILY, CLAIM_MAX_AGE_SECONDS };
/** The version of a row without a version token (a malformed one): replaceable as it is. */
export const UNVERSIONED = 'unversioned';

/** The one cell of a claim: `<token> <expiry> <fields JSON>`. */
const RECORD = 'r';
/** The three cells of a claim as written before the one cell (rows live 7 days after an upgrade). */
const VERSION = 'v';
const EXPIRES = 'e';
const FIELDS = 'f';
const CLAIM_COLUMNS: readonly string[] = [RECORD, VERSION, EXPIRES, FIELDS];
const TOKEN = /^[0-9a-f]{32}$/;
const TOKEN_RE2 = '[0-9a-f]{32}';
/** What ends the token and the expiry in the one cell. */
const SEPARATOR = ' ';
const ENDPOINT = 'https://bigtable.googleapis.com';
const SCOPE = 'https://www.googleapis.com/auth/bigtable.data';
const SERVICE = '/google.bigtable.v2.Bigtable';
/** Room for a large pending record; Bigtable takes a cell up to 100 MiB, a claim is far smaller. */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How often a create reads the claim again when it went between the create and the read. */
const CREATE_TRIES = 3;

export interface BigtableClaimOptions {
  readonly project: string;
  readonly instance: string;
  readonly table: string;
  /**
   * An app profile with single-cluster routing and transactional writes allowed: with more than
   * one cluster, CheckAndMutateRow is only safe through one (docs/delivery.md, "Claims in Bigtable").
   */
  readonly appProfileId?: string;
  /** BIGTABLE_EMULATOR_HOST: `host:port` of an emulator (plaintext, no credentials). */
  readonly emulatorHost?: string;
  /** What authorizes a call (default: application-default credentials, scope bigtable.data). */
  readonly auth?: HeaderSource;
  /** The gRPC client (default: one on node:http2 to the endpoint above). */
  readonly client?: UnaryClient;
  /** One call's limit (default 10 s): a slower one fails the push, which Pub/Sub brings back. */
  readonly timeoutMs?: number;
}

export const rowKeyOf = (key: ClaimKey): string => `${key.space}#${key.id}`;

/**
 * The one cell's value: the token, the expiry (epoch ms, decimal) and the fields (one JSON object),
 * each followed by one space but the last. The token first, so that "at this version" is a value
 * regex anchored at its start.
 */
export function claimRecord(version: string, fields: ClaimFields, expireAt: number): string {
  if (!TOKEN.test(version)) throw new Error(`not a version of this claim store: ${JSON.stringify(version)}`);
  if (!Number.isFinite(expireAt)) throw new Error(`not an expiry: ${expireAt}`);
  for (const [k, v] of Object.entries(fields)) {
    const t = typeof v;
    if (t !== 'string' && t !== 'boolean' && !(t === 'number' && Number.isFinite(v)))
      throw new Error(`claim field ${k} is not a flat value: ${String(v)}`);
  }
  return [version, String(Math.floor(expireAt)), JSON.stringify(fields)].join(SEPARATOR);
}

/** A claim as a set-cell mutation of its one cell (after a delete of the row, when replacing). */
export function claimCells(version: string, fields: ClaimFields, expireAt: number): Mutation[] {
  return [
    { setCell: { family: CLAIM_FAMILY, qualifier: RECORD, value: claimRecord(version, fields, expireAt) } },
  ];
}

const malformed = (version: string, why: string): HeldClaim => ({
  fields: {},
  version,
  expireAt: 0,
  malformed: why,
});

/** The token a claim's cell holds: the one cell's prefix, or the old form's version cell whole. */
function tokenOf(qualifier: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const token = qualifier === RECORD ? value.slice(0, 32) : value;
  if (!TOKEN.test(token)) return undefined;
  return qualifier === RECORD && value[32] !== SEPARATOR ? undefined : token;
}

/**
 * A claim as read from its row's cells (newest of each column): the one cell `r`, or the three
 * cells `v`, `e`, `f` of a row written before it; undefined for no cells.
 */
export function heldOfCells(cells: readonly ReadCell[]): HeldClaim | undefined {
  if (cells.length === 0) return undefined;
  const byQualifier = new Map<string, string>();
  for (const c of cells)
    if (c.family === CLAIM_FAMILY) byQualifier.set(c.qualifier, c.value.toString('utf8'));
  const record = byQualifier.get(RECORD);
  // Either form's token: what the version predicate (atVersion) matches, in the same order.
  const version = tokenOf(RECORD, record) ?? tokenOf(VERSION, byQualifier.get(VERSION)) ?? UNVERSIONED;
  const stranger = cells.find((c) => c.family !== CLAIM_FAMILY || !CLAIM_COLUMNS.includes(c.qualifier));
  if (stranger) return malformed(version, `a cell not of a claim: ${stranger.family}:${stranger.qualifier}`);
  const old = [VERSION, EXPIRES, FIELDS].filter((q) => byQualifier.has(q));
  if (record !== undefined && old.length > 0)
    return malformed(version, `cells of both forms: c:${RECORD} and c:${old.join(', c:')}`);
  if (version === UNVERSIONED) return malformed(version, 'no version token');
  let expires: string | undefined;
  let fields: string | undefined;
  if (record !== undefined) {
    const rest = record.slice(33);
    const end = rest.indexOf(SEPARATOR);
    expires = end < 0 ? rest : rest.slice(0, end);
    fields = end < 0 ? undefined : rest.slice(end + 1);
  } else {
    expires = byQualifier.get(EXPIRES);
    fields = byQualifier.get(FIELDS);
  }
  if (expires === undefined || !/^-?\d{1,16}$/.test(expires))
    return malformed(version, `no expiry (epoch ms): ${JSON.stringify(expires)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fields ?? '');
  } catch {
    return malformed(version, 'its fields are not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return malformed(version, 'its fields are not a JSON object');
  for (const [k, v] of Object.entries(parsed))
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      return malformed(version, `claim field ${k} is not a flat value: ${JSON.stringify(v)}`);
  return { fields: parsed as ClaimFields, version, expireAt: Number(expires) };
}

/**
 * The cells holding a token that `tokenRe2` matches, in either form: the one cell whose value
 * starts with it and a space, or the old form's version cell holding it whole. The old form's
 * `e` and `f` never pass: each branch keeps one qualifier only.
 */
function tokenCells(tokenRe2: string): RowFilter {
  return {
    interleave: [
      { chain: [{ qualifierRegex: RECORD }, { valueRegex: `${tokenRe2}${re2Literal(SEPARATOR)}\\C*` }] },
      { chain: [{ qualifierRegex: VERSION }, { valueRegex: tokenRe2 }] },
    ],
  };
}

/** The predicate "the row is still at this version" (newest cells only, either form). */
function atVersion(version: string): RowFilter {
  if (version === UNVERSIONED)
    // Cells, and none of them a version token: the malformed row as it was read.
    return {
      condition: {
        predicate: { chain: [{ cellsPerColumnLimit: 1 }, tokenCells(TOKEN_RE2)] },
        ifTrue: { blockAll: true },
        ifFalse: { passAll: true },
      },
    };
  if (!TOKEN.test(version)) throw new Error(`not a version of this claim store: ${JSON.stringify(version)}`);
  return { chain: [{ cellsPerColumnLimit: 1 }, tokenCells(re2Literal(version))] };
}

const newToken = (): string => randomBytes(16).toString('hex');

/**
 * Where the calls go and with what: Bigtable over TLS with credentials, or the emulator in
 * plaintext with none (credentials only ever go over TLS).
 */
export function bigtableClientOptions(
  opts: Pick<BigtableClaimOptions, 'emulatorHost' | 'auth'>,
): UnaryClientOptions {
  return {
    origin: opts.emulatorHost ? `http://${opts.emulatorHost}` : ENDPOINT,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    headers: {
      'user-agent': 'eventbus',
      'x-goog-api-client': `gl-node/${process.versions.node} eventbus/1`,
    },
    ...(opts.emulatorHost
      ? {}
      : { credentials: cachedCredentials(opts.auth ?? new GoogleAuth({ scopes: [SCOPE] })) }),
  };
}

export function createBigtableClaimStore(
  opts: BigtableClaimOptions,
): ClaimStore & { close(): Promise<void> } {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const tableName = `projects/${opts.project}/instances/${opts.instance}/tables/${opts.table}`;
  const client = opts.client ?? createUnaryClient(bigtableClientOptions(opts));
  const profile = opts.appProfileId ? { appProfileId: opts.appProfileId } : {};
  // Google's routing header: the table (and app profile) the call is for.
  const headers = {
    'x-goog-request-params': [
      `table_name=${encodeURIComponent(tableName)}`,
      ...(opts.appProfileId ? [`app_profile_id=${encodeURIComponent(opts.appProfileId)}`] : []),
    ].join('&'),
  };
  const failed = (what: string, key: ClaimKey, err: unknown): Error =>
    new Error(`Bigtable ${what} ${key.space}/${key.id}: ${(err as Error).message}`, { cause: err });

  const checkAndMutate = async (
    what: string,
    key: ClaimKey,
    predicate: RowFilter,
    ifMatched: readonly Mutation[],
    otherwise: readonly Mutation[],
  ): Promise<boolean> => {
    const body = encodeCheckAndMutateRow({
      tableName,
      ...profile,
      rowKey: rowKeyOf(key),
      predicate,
      ifMatched,
      otherwise,
    });
    try {
      const answer = await client.call({
        path: `${SERVICE}/CheckAndMutateRow`,
        body,
        deadline: Date.now() + timeoutMs,
        headers,
      });
      return decodeCheckAndMutateRow(answer);
    } catch (err) {
      throw failed(what, key, err);
    }
  };

  const read = async (key: ClaimKey): Promise<HeldClaim | undefined> => {
    checkClaimKey(key);
    const rowKey = rowKeyOf(key);
    const body = encodeReadRow({ tableName, ...profile, rowKey, filter: { cellsPerColumnLimit: 1 } });
    let rows: Map<string, ReadCell[]>;
    try {
      const messages = await client.stream({
        path: `${SERVICE}/ReadRows`,
        body,
        deadline: Date.now() + timeoutMs,
        headers,
      });
      rows = decodeReadRows(messages);
    } catch (err) {
      throw failed('read', key, err);
    }
    return heldOfCells(rows.get(rowKey) ?? []);
  };

  const create = async (key: ClaimKey, fields: ClaimFields, expireAt: number): Promise<CreateAnswer> => {
    checkClaimKey(key);
    for (let tries = CREATE_TRIES; ; tries--) {
      const version = newToken();
      const cells = claimCells(version, fields, expireAt);
      const held = await checkAndMutate('create', key, { cellsPerRowLimit: 1 }, [], cells);
      if (!held) return { created: true, version };
      const claim = await read(key);
      if (claim) return { created: false, held: claim };
      // Released between the create and the read: claim it again.
      if (tries <= 1)
        throw new Error(`Bigtable create ${key.space}/${key.id}: held, then gone, ${CREATE_TRIES} times`);
    }
  };

  return {
    create,
    read,
    async replace(key, version, fields, expireAt) {
      checkClaimKey(key);
      const next = newToken();
      const cells = claimCells(next, fields, expireAt);
      const done = await checkAndMutate(
        'replace',
        key,
        atVersion(version),
        [{ deleteRow: true }, ...cells],
        [],
      );
      return done ? next : undefined;
    },
    async release(key, version) {
      checkClaimKey(key);
      return checkAndMutate('release', key, atVersion(version), [{ deleteRow: true }], []);
    },
    close: () => client.close(),
  };
}
