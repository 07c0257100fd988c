/**
 * The document methods: get, createDocument, patch, delete, commit and batchGet. Every write
 * goes through one path, `commit`: a method's request becomes a list of writes, each checked
 * against its `currentDocument` precondition and the permission it needs, all against the state
 * as the earlier writes of the same request leave it, and only when every one passes is the list
 * committed as one record (atomic, as Firestore's commit is).
 */
import { randomBytes } from 'node:crypto';
import { FirestoreError, invalid, unsupported } from './errors.ts';
import { checkDocument, checkDocumentId } from './limits.ts';
import {
  type AppliedWrite,
  databaseOf,
  type FirestoreState,
  groupOf,
  type StoredDoc,
  unchanged,
} from './state.ts';
import {
  type Fields,
  formatTime,
  normalizeFields,
  parseFieldPath,
  parseTime,
  valueAt,
  withValueAt,
} from './values.ts';

/** The permission a write needs on its database, decided once the document's state is known. */
export type WritePermission =
  | 'datastore.entities.create'
  | 'datastore.entities.update'
  | 'datastore.entities.delete';

/** Called for each write with the permission it needs on its database; throws to refuse. */
export type Authorize = (permission: WritePermission, database: string) => void;

export interface Precondition {
  readonly exists?: boolean;
  readonly updateTime?: string;
}

/** One write of a commit, as the REST API carries it. */
export interface WriteRequest {
  readonly update?: { readonly name?: unknown; readonly fields?: unknown };
  readonly delete?: unknown;
  readonly updateMask?: { readonly fieldPaths?: unknown };
  readonly currentDocument?: Precondition;
  readonly updateTransforms?: unknown;
  readonly transform?: unknown;
}

const DOC_NAME = /^projects\/[^/]+\/databases\/[^/]+\/documents\/(?:[^/]+\/[^/]+\/)*[^/]+\/[^/]+$/;

/** Checks a document's full name (an even number of segments under `documents/`). */
export function checkDocName(name: unknown): string {
  if (
    typeof name !== 'string' ||
    !DOC_NAME.test(name) ||
    name.split('/').some((s) => s === '' || s === '.' || s === '..')
  )
    throw invalid(`Document name ${JSON.stringify(name)} is not a valid document name.`);
  if (name.split('/').some((s) => /^__.*__$/.test(s)))
    throw invalid(`Document name "${name}" uses a reserved id.`);
  if (Buffer.byteLength(name) > 6 * 1024) throw invalid(`Document name "${name}" is over 6 KiB.`);
  return name;
}

/** A stored document as the REST API answers it; `mask` keeps only the paths named. */
export function documentJson(name: string, d: StoredDoc, mask?: readonly string[]): Record<string, unknown> {
  let fields: Fields = d.fields;
  if (mask) {
    fields = {};
    for (const p of mask) {
      const segs = parseFieldPath(p);
      const v = valueAt(d.fields, segs);
      if (v !== undefined) fields = withValueAt(fields, segs, v);
    }
  }
  return {
    name,
    ...(Object.keys(fields).length ? { fields } : {}),
    createTime: formatTime(d.createTime),
    updateTime: formatTime(d.updateTime),
  };
}

/** Fails the write as Firestore does when its precondition does not hold. */
function checkPrecondition(
  name: string,
  current: StoredDoc | undefined,
  pre: Precondition | undefined,
): void {
  if (!pre) return;
  if (pre.exists !== undefined && pre.updateTime !== undefined)
    throw invalid('A precondition sets exists or updateTime, not both.');
  if (pre.exists === true && !current)
    throw new FirestoreError('NOT_FOUND', `No document to update: ${name}`);
  if (pre.exists === false && current)
    throw new FirestoreError('ALREADY_EXISTS', `Document already exists: ${name}`);
  if (pre.updateTime !== undefined) {
    const want = parseTime(pre.updateTime, 'currentDocument.updateTime', true);
    if (!current) throw new FirestoreError('NOT_FOUND', `No document to update: ${name}`);
    if (current.updateTime !== want)
      throw new FirestoreError(
        'FAILED_PRECONDITION',
        `The stored version (${formatTime(current.updateTime)}) of ${name} does not match the required base version (${formatTime(want)}).`,
      );
  }
}

function maskPaths(mask: WriteRequest['updateMask']): string[][] | undefined {
  if (mask === undefined) return undefined;
  const paths = mask.fieldPaths ?? [];
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string'))
    throw invalid('updateMask.fieldPaths is a list of field paths.');
  return paths.map(parseFieldPath);
}

/** The fields after an update: the whole document, or only the masked paths replaced. */
function updatedFields(before: Fields | undefined, given: Fields, mask: string[][] | undefined): Fields {
  if (!mask) return given;
  let out: Fields = before ?? {};
  for (const segs of mask) out = withValueAt(out, segs, valueAt(given, segs));
  return out;
}

export interface CommitResult {
  readonly commitTime: string;
  /** One per write: the document's update time after it (none for a delete). */
  readonly writeResults: readonly { updateTime?: string }[];
  /** The documents written (absent: deleted), by name, for answers that return one. */
  readonly after: ReadonlyMap<string, StoredDoc | undefined>;
}

/**
 * Checks and commits writes atomically, all in `database`: the first failure (a precondition, a
 * refused permission, an invalid write) fails the whole request and nothing is written.
 */
export async function commitWrites(
  state: FirestoreState,
  database: string,
  writes: readonly WriteRequest[],
  authorize: Authorize,
): Promise<CommitResult> {
  state.database(database);
  const time = state.tick();
  const after = new Map<string, StoredDoc | undefined>();
  const current = (name: string): StoredDoc | undefined =>
    after.has(name) ? after.get(name) : state.docs.get(name);
  const applied: AppliedWrite[] = [];
  const writeResults: { updateTime?: string }[] = [];
  for (const w of writes) {
    if (w.transform !== undefined || (Array.isArray(w.updateTransforms) && w.updateTransforms.length))
      throw unsupported('A field transform (server timestamps, increments, array unions)');
    const name = checkDocName(w.update ? w.update.name : w.delete);
    if (databaseOf(name) !== database) throw invalid(`Document ${name} is not in database ${database}.`);
    const before = current(name);
    if (w.update) {
      // A write that must find the document (exists: true, an update time) is an update even
      // when the document is gone; one that may create it is a create while it is absent.
      const pre = w.currentDocument;
      const updates = before !== undefined || pre?.exists === true || pre?.updateTime !== undefined;
      authorize(updates ? 'datastore.entities.update' : 'datastore.entities.create', database);
      checkPrecondition(name, before, w.currentDocument);
      if (before === undefined) checkDocumentId(name);
      const fields = updatedFields(
        before?.fields,
        normalizeFields(w.update.fields ?? {}),
        maskPaths(w.updateMask),
      );
      // Firestore's limits (limits.ts): size and depth, then the write rate of rising indexed values.
      checkDocument(name, fields);
      const group = `${database}/collectionGroups/${groupOf(name)}`;
      state.hotspots.record(group, fields, state.exempt.get(group));
      const doc: StoredDoc = unchanged(before, fields)
        ? (before as StoredDoc)
        : { fields, createTime: before?.createTime ?? time, updateTime: time };
      after.set(name, doc);
      applied.push({
        name,
        fields,
        createTime: formatTime(doc.createTime),
        updateTime: formatTime(doc.updateTime),
      });
      writeResults.push({ updateTime: formatTime(doc.updateTime) });
    } else {
      authorize('datastore.entities.delete', database);
      checkPrecondition(name, before, w.currentDocument);
      after.set(name, undefined);
      // Deleting what is not there changes nothing: no record.
      if (before) applied.push({ name, deleted: true });
      writeResults.push({});
    }
  }
  if (applied.length) await state.commitWrites(applied);
  return { commitTime: formatTime(time), writeResults, after };
}

/** A new document id: 20 letters and digits, as Firestore's auto-ids are. */
export function autoId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(20)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** batchGet's answer: one entry per name asked for, found or missing, at one read time. */
export function batchGet(
  state: FirestoreState,
  database: string,
  names: unknown,
  mask: readonly string[] | undefined,
): unknown[] {
  state.database(database);
  if (!Array.isArray(names) || names.length === 0)
    throw invalid('documents must name at least one document.');
  const readTime = formatTime(state.tick());
  return names.map((n) => {
    const name = checkDocName(n);
    if (databaseOf(name) !== database) throw invalid(`Document ${name} is not in database ${database}.`);
    const d = state.docs.get(name);
    return d ? { found: documentJson(name, d, mask), readTime } : { missing: name, readTime };
  });
}
