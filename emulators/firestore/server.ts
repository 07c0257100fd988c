/**
 * The Firestore emulator: the REST API v1 subset the claims use, on one HTTP port, as Google's
 * client calls it with FIRESTORE_EMULATOR_HOST and `preferRest` (docs/firestore-emulator.md).
 * One emulator per data directory (owner lock). With `iam`, each call is authorized first
 * (access.ts), and each identity port's connections act as its member. A timer sweeps documents
 * whose TTL field is past (`ttlSweepMs`; `sweep()` runs one now).
 */
import type http from 'node:http';
import {
  type EmulatorOptions,
  jsonListener,
  readJsonObject,
  serveEmulator,
} from '@eventbus/emulator-common/http-serve.ts';
import type { Enforcement, IdentityListeners } from '@eventbus/emulator-common/iam-enforce.ts';
import { type Access, accessOf, mayDatabase } from './access.ts';
import { createDatabase, databaseJson, fieldJson, Operations, patchField } from './admin.ts';
import {
  autoId,
  batchGet,
  checkDocName,
  commitWrites,
  documentJson,
  type WriteRequest,
} from './documents.ts';
import { FirestoreError, invalid, unsupported } from './errors.ts';
import { HotspotMeter } from './limits.ts';
import { FirestoreState } from './state.ts';

export interface FirestoreEmulatorOptions extends EmulatorOptions {
  /** How often expired documents are deleted (ms); 0 = only when `sweep()` is called. */
  ttlSweepMs?: number;
  /**
   * Writes a second of increasing values into one indexed field of a collection group before
   * ABORTED, Firestore's contention error (limits.ts; default Firestore's 500, 0 = no limit).
   */
  sequentialWritesPerSecond?: number;
}

export interface FirestoreEmulator {
  readonly port: number;
  readonly url: string;
  /** `host:port`, the form FIRESTORE_EMULATOR_HOST takes. */
  readonly host: string;
  readonly identityPorts: ReadonlyMap<string, number>;
  /** Deletes the documents whose TTL time is past now; their names. */
  sweep(): Promise<string[]>;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 11 << 20;

const readJson = (req: http.IncomingMessage) => readJsonObject(req, MAX_BODY_BYTES, invalid);

interface Call {
  readonly req: http.IncomingMessage;
  readonly method: string;
  readonly query: URLSearchParams;
  readonly access: Access | undefined;
}

/** A repeated query parameter (`mask.fieldPaths=a&mask.fieldPaths=b`), or undefined when absent. */
function repeated(q: URLSearchParams, key: string): string[] | undefined {
  const all = q.getAll(key);
  return all.length ? all : undefined;
}

/** `currentDocument.exists` / `currentDocument.updateTime` from the query. */
function queryPrecondition(q: URLSearchParams): WriteRequest['currentDocument'] {
  const exists = q.get('currentDocument.exists');
  const updateTime = q.get('currentDocument.updateTime');
  if (exists !== null && exists !== 'true' && exists !== 'false')
    throw invalid(`Invalid currentDocument.exists: ${exists}`);
  if (exists === null && updateTime === null) return undefined;
  return {
    ...(exists !== null ? { exists: exists === 'true' } : {}),
    ...(updateTime !== null ? { updateTime } : {}),
  };
}

class Router {
  readonly state: FirestoreState;
  readonly ops = new Operations();
  constructor(state: FirestoreState) {
    this.state = state;
  }

  async dispatch(c: Call, segs: readonly string[]): Promise<unknown> {
    if (segs.length === 0 || (segs.length === 1 && segs[0] === 'health')) return { status: 'ok' };
    if (segs[0] !== 'v1' || segs[1] !== 'projects' || segs[2] === undefined || segs[3] !== 'databases')
      throw new FirestoreError('NOT_FOUND', `Not found: ${c.method} /${segs.join('/')}`);
    const project = segs[2];
    if (segs.length === 4) return this.databases(c, project);
    const database = `projects/${project}/databases/${segs[4]}`;
    const rest = segs.slice(5);
    if (rest.length === 0 && c.method === 'GET') {
      mayDatabase(c.access, 'datastore.databases.get', database);
      return databaseJson(this.state.database(database));
    }
    const [head] = rest;
    if (head === 'documents:commit' && rest.length === 1 && c.method === 'POST')
      return this.commit(c, database);
    if (head === 'documents:batchGet' && rest.length === 1 && c.method === 'POST')
      return this.batchGet(c, database);
    if (head === 'documents' && rest.length >= 2) return this.document(c, database, rest.slice(1));
    if (head === 'collectionGroups' && rest[2] === 'fields' && rest.length === 4)
      return this.field(c, database, `${database}/collectionGroups/${rest[1]}/fields/${rest[3]}`);
    if (head === 'operations' && rest.length === 2 && c.method === 'GET') {
      mayDatabase(c.access, 'datastore.databases.get', database);
      return this.ops.get(`${database}/operations/${rest[1]}`);
    }
    throw unsupported(`${c.method} /${segs.join('/')}`);
  }

  private async databases(c: Call, project: string): Promise<unknown> {
    if (c.method === 'GET') {
      const prefix = `projects/${project}/databases/`;
      const databases = [...this.state.databases.values()].filter((d) => d.name.startsWith(prefix));
      for (const d of databases) mayDatabase(c.access, 'datastore.databases.list', d.name);
      return { databases: databases.map(databaseJson) };
    }
    if (c.method !== 'POST') throw unsupported(`${c.method} databases`);
    const id = c.query.get('databaseId');
    if (!id) throw invalid('databaseId is required.');
    mayDatabase(c.access, 'datastore.databases.create', `projects/${project}/databases/${id}`);
    return createDatabase(this.state, this.ops, project, id, await readJson(c.req));
  }

  private authorizer(c: Call) {
    return (permission: string, database: string): void => mayDatabase(c.access, permission, database);
  }

  private async commit(c: Call, database: string): Promise<unknown> {
    const body = await readJson(c.req);
    if (body.transaction !== undefined) throw unsupported('A transaction');
    const writes = body.writes ?? [];
    if (!Array.isArray(writes)) throw invalid('writes is a list of writes.');
    if (writes.length > 500) throw invalid('A commit holds at most 500 writes.');
    const r = await commitWrites(this.state, database, writes as WriteRequest[], this.authorizer(c));
    return { writeResults: r.writeResults, commitTime: r.commitTime };
  }

  private async batchGet(c: Call, database: string): Promise<unknown> {
    const body = await readJson(c.req);
    if (body.transaction !== undefined || body.newTransaction !== undefined || body.readTime !== undefined)
      throw unsupported('A transactional or point-in-time read');
    mayDatabase(c.access, 'datastore.entities.get', database);
    const mask = (body.mask as { fieldPaths?: string[] } | undefined)?.fieldPaths;
    // The REST form of a server-streaming method: a JSON array of the stream's messages.
    return batchGet(this.state, database, body.documents, mask);
  }

  private async document(c: Call, database: string, path: readonly string[]): Promise<unknown> {
    const name = `${database}/documents/${path.join('/')}`;
    if (path.length % 2 === 1) {
      if (c.method !== 'POST') throw unsupported(`${c.method} on a collection (list, query)`);
      const id = c.query.get('documentId') || autoId();
      const body = await readJson(c.req);
      return this.write(c, database, {
        update: { name: `${name}/${id}`, fields: body.fields ?? {} },
        currentDocument: { exists: false },
      });
    }
    checkDocName(name);
    if (c.method === 'GET') {
      if (c.query.has('transaction') || c.query.has('readTime'))
        throw unsupported('A transactional or point-in-time read');
      mayDatabase(c.access, 'datastore.entities.get', database);
      this.state.database(database);
      const d = this.state.docs.get(name);
      if (!d) throw new FirestoreError('NOT_FOUND', `Document "${name}" not found.`);
      return documentJson(name, d, repeated(c.query, 'mask.fieldPaths'));
    }
    const currentDocument = queryPrecondition(c.query);
    if (c.method === 'PATCH') {
      const body = await readJson(c.req);
      const fieldPaths = repeated(c.query, 'updateMask.fieldPaths');
      return this.write(c, database, {
        update: { name, fields: body.fields ?? {} },
        ...(fieldPaths ? { updateMask: { fieldPaths } } : {}),
        ...(currentDocument ? { currentDocument } : {}),
      });
    }
    if (c.method === 'DELETE') {
      await commitWrites(
        this.state,
        database,
        [{ delete: name, ...(currentDocument ? { currentDocument } : {}) }],
        this.authorizer(c),
      );
      return {};
    }
    throw unsupported(`${c.method} on a document`);
  }

  /** One write through commit, answered with the document as written (createDocument, patch). */
  private async write(c: Call, database: string, w: WriteRequest): Promise<unknown> {
    const name = w.update?.name as string;
    const r = await commitWrites(this.state, database, [w], this.authorizer(c));
    const doc = r.after.get(name);
    if (!doc) throw new FirestoreError('INTERNAL', `${name} was not written.`);
    return documentJson(name, doc, repeated(c.query, 'mask.fieldPaths'));
  }

  private async field(c: Call, database: string, name: string): Promise<unknown> {
    this.state.database(database);
    if (c.method === 'GET') {
      mayDatabase(c.access, 'datastore.indexes.list', database);
      return fieldJson(this.state, name);
    }
    if (c.method !== 'PATCH') throw unsupported(`${c.method} on a field`);
    mayDatabase(c.access, 'datastore.indexes.update', database);
    const mask = (c.query.get('updateMask') ?? '').split(',').filter(Boolean);
    mask.push(...c.query.getAll('updateMask.paths'));
    return patchField(this.state, this.ops, name, mask, await readJson(c.req));
  }
}

function segments(pathname: string): string[] {
  const raw = pathname.split('/').slice(1);
  if (raw.at(-1) === '') raw.pop();
  return raw.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw invalid(`Invalid percent-encoding in the path: ${s}`);
    }
  });
}

function handler(
  state: FirestoreState,
  enforcement: Enforcement | undefined,
  identities: () => IdentityListeners | undefined,
): http.RequestListener {
  const router = new Router(state);
  return jsonListener((req, url) => {
    const access = enforcement ? accessOf(enforcement, req, identities()) : undefined;
    const call: Call = { req, method: req.method ?? 'GET', query: url.searchParams, access };
    return router.dispatch(call, segments(url.pathname));
  });
}

/** Starts the emulator on `host:port` (port 0 = ephemeral) with its state under `dataDir`. */
export async function startFirestoreEmulator(opts: FirestoreEmulatorOptions): Promise<FirestoreEmulator> {
  const served = await serveEmulator(opts, {
    open: (dataDir, fsync) => FirestoreState.open(dataDir, fsync),
    closeState: (s) => s.close(),
    handler: (s, { enforcement, identities }) => handler(s, enforcement, identities),
  });
  const state = served.state;
  if (opts.sequentialWritesPerSecond !== undefined)
    state.hotspots = new HotspotMeter(opts.sequentialWritesPerSecond);
  let sweeping: Promise<string[]> | undefined;
  const sweep = (): Promise<string[]> => {
    sweeping ??= state.sweep().finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  };
  const every = opts.ttlSweepMs ?? 60_000;
  const timer = every > 0 ? setInterval(() => void sweep().catch(() => undefined), every) : undefined;
  timer?.unref();
  return {
    port: served.port,
    url: served.url,
    host: served.url.slice('http://'.length),
    identityPorts: served.identityPorts,
    sweep,
    close: async () => {
      clearInterval(timer);
      await sweeping?.catch(() => undefined);
      await served.close();
    },
  };
}
