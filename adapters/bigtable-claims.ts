/**
 * The claim store (core/claims/claim-store.ts) on Cloud Bigtable (#97; docs/delivery.md, "Claims
 * in Bigtable"): one row per claim in one table, row key `<space>#<id>`, its cells in one column
 * family (CLAIM_FAMILY, whose GC rule drops cells CLAIM_MAX_AGE_SECONDS after they were written):
 *
 * - `v`: the version, a random 128-bit token in hex written with every write (never a timestamp:
 *   two writes in one millisecond still differ);
 * - `e`: the expiry, epoch milliseconds in decimal. Bigtable's garbage collection is eventual, so
 *   this cell decides when a claim stops counting, as `expire_at` does in Firestore;
 * - `f`: the fields, one JSON object of flat values.
 *
 * Every write is one CheckAndMutateRow, atomic for its row:
 *
 * - create: predicate "the row has a cell"; not matched → the false mutations write the claim
 *   (created); matched → the row is read and returned `held` (read again if it went meanwhile);
 * - replace / release: predicate "the version cell holds this token" (a qualifier regex on `v`
 *   chained with a value regex of the token, RE2-escaped) → the true mutations delete the row and
 *   write the new cells / delete the row. Not matched: someone else's now (undefined / false).
 * - read: ReadRows of the one key, newest cell of each column.
 *
 * A row this code could not have written (a cell of another column, no version, JSON that is not
 * flat values) reads `malformed`, with why. When it has no version token at all, its version is
 * UNVERSIONED, and a replace at it matches only a row that still has cells and no token (a
 * `condition` filter), so it is repaired from the claim store alone, as in Firestore.
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

const VERSION = 'v';
const EXPIRES = 'e';
const FIELDS = 'f';
const TOKEN = /^[0-9a-f]{32}$/;
const TOKEN_RE2 = '[0-9a-f]{32}';
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

/** The cells of a claim, as set-cell mutations (after a delete of the row, when replacing). */
export function claimCells(version: string, fields: ClaimFields, expireAt: number): Mutation[] {
  if (!Number.isFinite(expireAt)) throw new Error(`not an expiry: ${expireAt}`);
  for (const [k, v] of Object.entries(fields)) {
    const t = typeof v;
    if (t !== 'string' && t !== 'boolean' && !(t === 'number' && Number.isFinite(v)))
      throw new Error(`claim field ${k} is not a flat value: ${String(v)}`);
  }
  const cell = (qualifier: string, value: string): Mutation => ({
    setCell: { family: CLAIM_FAMILY, qualifier, value },
  });
  return [
    cell(VERSION, version),
    cell(EXPIRES, String(Math.floor(expireAt))),
    cell(FIELDS, JSON.stringify(fields)),
  ];
}

const malformed = (version: string, why: string): HeldClaim => ({
  fields: {},
  version,
  expireAt: 0,
  malformed: why,
});

/** A claim as read from its row's cells (newest of each column); undefined for no cells. */
export function heldOfCells(cells: readonly ReadCell[]): HeldClaim | undefined {
  if (cells.length === 0) return undefined;
  const byQualifier = new Map<string, string>();
  for (const c of cells)
    if (c.family === CLAIM_FAMILY) byQualifier.set(c.qualifier, c.value.toString('utf8'));
  const token = byQualifier.get(VERSION);
  const version = token !== undefined && TOKEN.test(token) ? token : UNVERSIONED;
  const stranger = cells.find(
    (c) => c.family !== CLAIM_FAMILY || ![VERSION, EXPIRES, FIELDS].includes(c.qualifier),
  );
  if (stranger) return malformed(version, `a cell not of a claim: ${stranger.family}:${stranger.qualifier}`);
  if (version === UNVERSIONED) return malformed(version, 'no version token');
  const expires = byQualifier.get(EXPIRES);
  if (expires === undefined || !/^-?\d{1,16}$/.test(expires))
    return malformed(version, `no expiry (epoch ms): ${JSON.stringify(expires)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(byQualifier.get(FIELDS) ?? '');
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

/** The predicate "the row is still at this version" (newest cells only). */
function atVersion(version: string): RowFilter {
  if (version === UNVERSIONED)
    // Cells, and none of them a version token: the malformed row as it was read.
    return {
      condition: {
        predicate: {
          chain: [{ cellsPerColumnLimit: 1 }, { qualifierRegex: VERSION }, { valueRegex: TOKEN_RE2 }],
        },
        ifTrue: { blockAll: true },
        ifFalse: { passAll: true },
      },
    };
  if (!TOKEN.test(version)) throw new Error(`not a version of this claim store: ${JSON.stringify(version)}`);
  return {
    chain: [
      { cellsPerColumnLimit: 1 },
      { qualifierRegex: re2Literal(VERSION) },
      { valueRegex: re2Literal(version) },
    ],
  };
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
