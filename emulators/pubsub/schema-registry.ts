/**
 * The schema registry's operations: schemas with their revisions (newest first), committed,
 * rolled back and deleted; a deleted schema leaves its topics' settings naming `_deleted-schema_`.
 * The definitions' checks and the revision helpers are in schemas.ts.
 */
import { REC } from './codec.ts';
import type { EngineState } from './engine-state.ts';
import { alreadyExists, invalid, notFound } from './errors.ts';
import { byName, type TopicResource } from './resources.ts';
import {
  DELETED_SCHEMA,
  newRevision,
  revisionOf,
  type SchemaRevision,
  type SchemaType,
  type StoredSchema,
  schemaId,
  splitRevision,
  withoutRevision,
} from './schemas.ts';

function schemaOr404(s: EngineState, name: string): StoredSchema {
  schemaId(name);
  const schema = s.schemas.get(name);
  if (!schema) throw notFound(name);
  return schema;
}

async function putSchema(s: EngineState, schema: StoredSchema): Promise<void> {
  s.schemas.set(schema.name, schema);
  await s.append({ type: REC.SCHEMA_PUT, schema });
}

export async function createSchema(
  s: EngineState,
  name: string,
  type: SchemaType,
  definition: string,
): Promise<SchemaRevision> {
  schemaId(name);
  if (s.schemas.has(name)) throw alreadyExists(name);
  const rev = newRevision(name, type, definition, Date.now());
  await putSchema(s, { name, revisions: [rev] });
  return rev;
}

/** A schema's newest revision, or the one `name@revisionId` names. */
export function getSchema(s: EngineState, nameWithRevision: string): SchemaRevision {
  const { name, revisionId } = splitRevision(nameWithRevision);
  return revisionOf(schemaOr404(s, name), revisionId);
}

export function listSchemas(s: EngineState, project: string): SchemaRevision[] {
  const prefix = `projects/${project}/schemas/`;
  return [...s.schemas.values()]
    .filter((schema) => schema.name.startsWith(prefix))
    .sort(byName)
    .map((schema) => revisionOf(schema, undefined));
}

export function listSchemaRevisions(s: EngineState, name: string): SchemaRevision[] {
  return [...schemaOr404(s, name).revisions];
}

export async function commitSchema(
  s: EngineState,
  name: string,
  type: SchemaType,
  definition: string,
): Promise<SchemaRevision> {
  const schema = schemaOr404(s, name);
  const rev = newRevision(name, type, definition, Date.now());
  await putSchema(s, { name, revisions: [rev, ...schema.revisions] });
  return rev;
}

/** A new revision with the definition of an earlier one. */
export async function rollbackSchema(
  s: EngineState,
  name: string,
  revisionId: string,
): Promise<SchemaRevision> {
  const schema = schemaOr404(s, name);
  const old = revisionOf(schema, revisionId);
  const rev = newRevision(name, old.type, old.definition, Date.now());
  await putSchema(s, { name, revisions: [rev, ...schema.revisions] });
  return rev;
}

export async function deleteSchemaRevision(
  s: EngineState,
  nameWithRevision: string,
  given?: string,
): Promise<SchemaRevision> {
  const split = splitRevision(nameWithRevision);
  const revisionId = split.revisionId ?? given;
  if (!revisionId) throw invalid('A revision id is required (name@revisionId).', 'name');
  const schema = schemaOr404(s, split.name);
  const deleted = revisionOf(schema, revisionId);
  await putSchema(s, withoutRevision(schema, revisionId));
  return deleted;
}

/** Deletes a schema; topics that named it keep settings naming `_deleted-schema_`, as Pub/Sub's. */
export async function deleteSchema(s: EngineState, name: string): Promise<void> {
  schemaOr404(s, name);
  s.schemas.delete(name);
  await s.append({ type: REC.SCHEMA_DEL, name });
  for (const topic of s.topics.values()) {
    if (topic.schemaSettings?.schema !== name) continue;
    const updated: TopicResource = {
      ...topic,
      schemaSettings: { ...topic.schemaSettings, schema: DELETED_SCHEMA },
    };
    s.putTopic(updated);
    await s.append({ type: REC.TOPIC_PUT, topic: updated });
  }
}
