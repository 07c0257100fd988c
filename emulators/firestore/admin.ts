/**
 * The admin methods the claims need: databases create and get (create answers a long-running
 * operation, already done), and a collection group's field, for its TTL policy (patch answers an
 * operation too). Operations are kept in memory for `operations.get`; the state they report is
 * durable.
 */
import { randomUUID } from 'node:crypto';
import { FirestoreError, invalid } from './errors.ts';
import type { DatabaseState, FirestoreState } from './state.ts';
import { formatTime, parseFieldPath } from './values.ts';

const ADMIN = 'type.googleapis.com/google.firestore.admin.v1';

/**
 * Firestore's database id rule: `(default)`, or 4–63 characters of lowercase letters, digits and
 * hyphens, starting with a letter and ending with a letter or digit, and not UUID-like.
 */
export function checkDatabaseId(id: string): void {
  if (id === '(default)') return;
  if (!/^[a-z][a-z0-9-]{2,61}[a-z0-9]$/.test(id) || /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(id))
    throw invalid(
      `Database id "${id}" is invalid: 4-63 characters of lowercase letters, digits and hyphens, starting with a letter and ending with a letter or digit.`,
    );
}

export const databaseJson = (db: DatabaseState): Record<string, unknown> => ({
  name: db.name,
  uid: db.uid,
  createTime: db.createTime,
  updateTime: db.createTime,
  locationId: db.locationId,
  type: db.type,
  concurrencyMode: 'PESSIMISTIC',
  appEngineIntegrationMode: 'DISABLED',
  deleteProtectionState: db.deleteProtectionState,
  databaseEdition: 'STANDARD',
  etag: db.uid,
});

export class Operations {
  private readonly done = new Map<string, Record<string, unknown>>();

  /** A finished operation under `parent` whose answer is `response`. */
  finished(
    parent: string,
    metadata: string,
    response: Record<string, unknown>,
    responseType: string,
  ): unknown {
    const name = `${parent}/operations/${randomUUID()}`;
    const op = {
      name,
      metadata: { '@type': `${ADMIN}.${metadata}`, endTime: formatTime(BigInt(Date.now()) * 1000n) },
      done: true,
      response: { '@type': `${ADMIN}.${responseType}`, ...response },
    };
    this.done.set(name, op);
    return op;
  }

  get(name: string): unknown {
    const op = this.done.get(name);
    if (!op) throw new FirestoreError('NOT_FOUND', `Operation ${name} not found.`);
    return op;
  }
}

const DB_TYPES = ['FIRESTORE_NATIVE', 'DATASTORE_MODE'];

export async function createDatabase(
  state: FirestoreState,
  ops: Operations,
  project: string,
  id: string,
  body: Record<string, unknown>,
): Promise<unknown> {
  checkDatabaseId(id);
  const name = `projects/${project}/databases/${id}`;
  if (state.databases.has(name)) throw new FirestoreError('ALREADY_EXISTS', `Database ${id} already exists.`);
  const type = body.type ?? 'FIRESTORE_NATIVE';
  if (typeof type !== 'string' || !DB_TYPES.includes(type))
    throw invalid(`Invalid database type: ${String(type)}`);
  if (typeof body.locationId !== 'string' || body.locationId === '') throw invalid('locationId is required.');
  const protection = body.deleteProtectionState ?? 'DELETE_PROTECTION_DISABLED';
  if (protection !== 'DELETE_PROTECTION_ENABLED' && protection !== 'DELETE_PROTECTION_DISABLED')
    throw invalid(`Invalid deleteProtectionState: ${String(protection)}`);
  const db: DatabaseState = {
    name,
    uid: randomUUID(),
    locationId: body.locationId,
    type,
    deleteProtectionState: protection,
    createTime: formatTime(state.tick()),
  };
  await state.putDatabase(db);
  return ops.finished(name, 'CreateDatabaseMetadata', databaseJson(db), 'Database');
}

/** A field as `fields.get` answers it: its TTL policy when it has one, its index exemption. */
export function fieldJson(state: FirestoreState, name: string): Record<string, unknown> {
  const group = name.slice(0, name.indexOf('/fields/'));
  const field = name.slice(name.indexOf('/fields/') + '/fields/'.length);
  return {
    name,
    ...(state.ttl.get(group) === field ? { ttlConfig: { state: 'ACTIVE' } } : {}),
    ...(state.exempt.get(group)?.has(field)
      ? { indexConfig: { indexes: [], usesAncestorConfig: false } }
      : {}),
  };
}

/**
 * `fields.patch` with `updateMask` naming `ttlConfig`: a `ttlConfig` in the body makes the field
 * the collection group's TTL field (one per group, as Firestore allows), none removes it. With
 * `indexConfig` in the mask, an `indexConfig` without indexes (`{}` or `indexes: []`) exempts the
 * field from single-field indexing, one with indexes (or none at all) indexes it again: the
 * emulator has no indexes to build, but the sequential-write limit (limits.ts) counts only
 * indexed fields, as Firestore's does.
 */
export async function patchField(
  state: FirestoreState,
  ops: Operations,
  name: string,
  mask: readonly string[],
  body: Record<string, unknown>,
): Promise<unknown> {
  const group = name.slice(0, name.indexOf('/fields/'));
  const field = name.slice(name.indexOf('/fields/') + '/fields/'.length);
  parseFieldPath(field);
  for (const m of mask)
    if (m !== 'ttlConfig' && m !== 'indexConfig') throw invalid(`Invalid updateMask path for a field: ${m}`);
  if (mask.includes('ttlConfig')) {
    const current = state.ttl.get(group);
    if (body.ttlConfig !== undefined && body.ttlConfig !== null) {
      if (current !== undefined && current !== field)
        throw new FirestoreError(
          'FAILED_PRECONDITION',
          `Collection group ${group} already has a TTL policy on field ${current}; a group has at most one.`,
        );
      await state.setTtl(group, field);
    } else if (current === field) await state.setTtl(group, null);
  }
  if (mask.includes('indexConfig')) {
    const config = body.indexConfig as { indexes?: unknown } | undefined | null;
    const exempt =
      config !== undefined &&
      config !== null &&
      (!Array.isArray(config.indexes) || config.indexes.length === 0);
    await state.setExempt(group, field, exempt);
  }
  return ops.finished(group, 'FieldOperationMetadata', fieldJson(state, name), 'Field');
}
