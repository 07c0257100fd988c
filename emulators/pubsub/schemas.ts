/**
 * Pub/Sub schemas (Avro and Protocol Buffer definitions with revisions) and a topic's schema
 * settings, as Pub/Sub's SchemaService keeps them: the checks and the revision bookkeeping, pure
 * (the engine stores and logs them). A definition is checked for its shape (an Avro definition is
 * JSON naming a type, a record with a name and fields; a Protocol Buffer definition declares one
 * top-level message), not compiled; messages published to a topic with a schema are not validated
 * against it (docs/pubsub-emulator.md).
 */
import { randomBytes } from 'node:crypto';
import { ApiError, invalid, notFound } from './errors.ts';

export type SchemaType = 'AVRO' | 'PROTOCOL_BUFFER';

/** One revision of a schema, in the canonical (REST JSON) shape. */
export interface SchemaRevision {
  name: string;
  type: SchemaType;
  definition: string;
  revisionId: string;
  /** RFC 3339. */
  revisionCreateTime: string;
}

/** A schema: its revisions, newest first. */
export interface StoredSchema {
  name: string;
  revisions: SchemaRevision[];
}

export interface SchemaSettings {
  schema: string;
  encoding: 'JSON' | 'BINARY';
  firstRevisionId?: string;
  lastRevisionId?: string;
}

/** What a topic's schema name becomes when its schema is deleted (as Pub/Sub names it). */
export const DELETED_SCHEMA = '_deleted-schema_';

const SCHEMA_ID = /^[A-Za-z][A-Za-z0-9\-_.~+%]{2,254}$/;
const AVRO_TYPES = new Set(['record', 'enum', 'array', 'map', 'fixed', 'string', 'int', 'long', 'float']);

/** `projects/{p}/schemas/{id}` checked; the id. */
export function schemaId(name: string): string {
  const m = /^projects\/[^/]+\/schemas\/([^/@]+)$/.exec(name);
  if (!m || !SCHEMA_ID.test(m[1] as string)) throw invalid(`Invalid schema name: (name=${name})`, 'name');
  return m[1] as string;
}

/** `name@revisionId` split (the revision undefined without `@`). */
export function splitRevision(name: string): { name: string; revisionId: string | undefined } {
  const at = name.indexOf('@');
  return at < 0
    ? { name, revisionId: undefined }
    : { name: name.slice(0, at), revisionId: name.slice(at + 1) };
}

export function schemaType(raw: unknown): SchemaType {
  if (raw === 'AVRO' || raw === 'PROTOCOL_BUFFER') return raw;
  throw invalid('Schema type must be AVRO or PROTOCOL_BUFFER.', 'schema.type');
}

/** Refuses a definition that is not of its type's shape (INVALID_ARGUMENT, as ValidateSchema). */
export function checkDefinition(type: SchemaType, definition: string): void {
  if (definition.trim() === '')
    throw invalid('The schema definition must not be empty.', 'schema.definition');
  if (type === 'PROTOCOL_BUFFER') {
    const messages = definition.match(/^\s*message\s+[A-Za-z_][A-Za-z0-9_]*\s*\{/gm) ?? [];
    if (messages.length !== 1)
      throw invalid(
        `Protocol Buffer schema definitions must declare exactly one top-level message (found ${messages.length}).`,
        'schema.definition',
      );
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition);
  } catch {
    throw invalid('Invalid Avro schema definition: it is not JSON.', 'schema.definition');
  }
  const o = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const type0 = o['type'];
  if (typeof type0 !== 'string' || !AVRO_TYPES.has(type0))
    throw invalid('Invalid Avro schema definition: no "type" of a named Avro type.', 'schema.definition');
  if (type0 === 'record' && (typeof o['name'] !== 'string' || !Array.isArray(o['fields'])))
    throw invalid(
      'Invalid Avro schema definition: a record needs a "name" and "fields".',
      'schema.definition',
    );
}

/** A new revision of `name` (a fresh 8-character revision id, created now). */
export function newRevision(name: string, type: SchemaType, definition: string, now: number): SchemaRevision {
  checkDefinition(type, definition);
  return {
    name,
    type,
    definition,
    revisionId: randomBytes(4).toString('hex'),
    revisionCreateTime: new Date(now).toISOString(),
  };
}

/** The revision a name asks for (`name@rev`, or the newest), or NOT_FOUND. */
export function revisionOf(schema: StoredSchema, revisionId: string | undefined): SchemaRevision {
  const rev =
    revisionId === undefined
      ? schema.revisions[0]
      : schema.revisions.find((r) => r.revisionId === revisionId);
  if (!rev) throw notFound(`${schema.name}@${revisionId ?? ''}`);
  return rev;
}

/** A revision in a SchemaView: BASIC leaves the definition out. */
export function viewOf(rev: SchemaRevision, view: unknown, full: boolean): SchemaRevision {
  const basic = view === 'BASIC' || ((view === undefined || view === 'SCHEMA_VIEW_UNSPECIFIED') && !full);
  return basic ? { ...rev, definition: '' } : rev;
}

/** A topic's schema settings checked against the schemas there are (Pub/Sub refuses unknown ones). */
export function checkSchemaSettings(
  raw: SchemaSettings,
  lookup: (name: string) => StoredSchema | undefined,
): SchemaSettings {
  if (raw.schema === DELETED_SCHEMA) return raw;
  const schema = lookup(raw.schema);
  if (!schema) throw notFound(raw.schema);
  for (const id of [raw.firstRevisionId, raw.lastRevisionId])
    if (id && !schema.revisions.some((r) => r.revisionId === id)) throw notFound(`${raw.schema}@${id}`);
  if (raw.encoding !== 'JSON' && raw.encoding !== 'BINARY')
    throw invalid('Schema encoding must be JSON or BINARY.', 'schema_settings.encoding');
  return raw;
}

/**
 * The attributes Pub/Sub adds to a message published to a topic with a schema (the subscriber's
 * client reads them to decode it): the schema's name, the encoding and the revision in force, the
 * newest within the topic's revision range.
 */
export function schemaAttributes(
  settings: SchemaSettings,
  schema: StoredSchema | undefined,
): Record<string, string> {
  if (!schema) return {};
  const ids = schema.revisions.map((r) => r.revisionId);
  const last = settings.lastRevisionId ? ids.indexOf(settings.lastRevisionId) : 0;
  const rev = schema.revisions[Math.max(0, last)];
  return {
    googclient_schemaname: settings.schema,
    googclient_schemaencoding: settings.encoding,
    ...(rev ? { googclient_schemarevisionid: rev.revisionId } : {}),
  };
}

/** Deleting a schema's revision: refused for its only one (FAILED_PRECONDITION, as Pub/Sub). */
export function withoutRevision(schema: StoredSchema, revisionId: string): StoredSchema {
  if (!schema.revisions.some((r) => r.revisionId === revisionId))
    throw notFound(`${schema.name}@${revisionId}`);
  if (schema.revisions.length === 1)
    throw new ApiError(
      'FAILED_PRECONDITION',
      'The only revision of a schema cannot be deleted; delete the schema.',
    );
  return { ...schema, revisions: schema.revisions.filter((r) => r.revisionId !== revisionId) };
}
