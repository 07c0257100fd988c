/**
 * IAM in the BigQuery emulator (`--iam <file>`): who calls (a request's bearer token, else the
 * member of the port it came in on, else the owner: emulators/common/iam-enforce.ts), the
 * permission each REST call needs on which resource (`authorize`), what each statement of a query
 * needs (`mayRun`), and BigQuery's 401 and 403 bodies, the 403 with the ErrorInfo naming the
 * permission and the resource. The whole map is in README.md, "Access control". Without `--iam`
 * a request has no `Access`, and every check here returns at once.
 */
import type { IncomingMessage } from 'node:http';
import {
  type Caller,
  type CheckRequest,
  type Denial,
  denialInfo,
  type Enforcement,
  type IdentityListeners,
  OWNER,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { ApiError } from './errors.ts';
import { mayReadWhole } from './masking.ts';
import type { FieldSchema } from './schema.ts';
import { type TableRef, type Translation, translate } from './sql.ts';
import type { Emulator, JobRecord, Json } from './state.ts';
import { wildcardMatches } from './statements.ts';

/** The caller of one request, and the policies it is checked against. */
export interface Access {
  readonly enforcement: Enforcement;
  readonly caller: Caller;
}

const PROJECT_TYPE = 'cloudresourcemanager.googleapis.com/Project';
const DATASET_TYPE = 'bigquery.googleapis.com/Dataset';
const TABLE_TYPE = 'bigquery.googleapis.com/Table';

const projectName = (p: string) => `projects/${p}`;
const datasetName = (p: string, d: string) => `projects/${p}/datasets/${d}`;
const tableName = (t: TableRef) => `${datasetName(t.projectId, t.datasetId)}/tables/${t.tableId}`;

/** Who a request is; a token that does not verify is BigQuery's 401. */
export function accessOf(
  enforcement: Enforcement,
  req: IncomingMessage,
  identities: IdentityListeners | undefined,
): Access {
  const caller = enforcement.callerOf(req.headers.authorization, identities?.memberOfSocket(req.socket));
  if (caller === undefined) throw new ApiError('authError', UNAUTHENTICATED_MESSAGE);
  return { enforcement, caller };
}

/** BigQuery's 403 sentence for the kind of resource refused, with the ErrorInfo in `details`. */
function refusal(d: Denial): ApiError {
  const [, p = '', ds, t] =
    /^projects\/([^/]+)(?:\/datasets\/([^/]+)(?:\/tables\/(.+))?)?$/.exec(d.resource) ?? [];
  let message: string;
  if (t !== undefined) {
    const name = `${p}:${ds}.${t}`;
    message = `Access Denied: Table ${name}: Permission ${d.permission} denied on table ${name} (or it may not exist).`;
  } else if (ds !== undefined) {
    const name = `${p}:${ds}`;
    message = `Access Denied: Dataset ${name}: Permission ${d.permission} denied on dataset ${name} (or it may not exist).`;
  } else {
    message = `Access Denied: Project ${p}: User does not have ${d.permission} permission in project ${p}.`;
  }
  return new ApiError('accessDenied', message, undefined, [denialInfo('bigquery.googleapis.com', d)]);
}

function enforce(a: Access | undefined, req: CheckRequest): void {
  if (!a) return;
  const d = a.enforcement.check(a.caller, req);
  if (d) throw refusal(d);
}

const onProject = (permission: string, p: string): CheckRequest => ({
  permission,
  resource: projectName(p),
  resourceType: PROJECT_TYPE,
});
const onDataset = (permission: string, p: string, d: string): CheckRequest => ({
  permission,
  resource: datasetName(p, d),
  resourceType: DATASET_TYPE,
});
const onTable = (permission: string, t: TableRef): CheckRequest => ({
  permission,
  resource: tableName(t),
  resourceType: TABLE_TYPE,
});

/** Refused unless the caller holds `permission` on table `t`. */
export const mayTable = (a: Access | undefined, permission: string, t: TableRef): void =>
  enforce(a, onTable(permission, t));

/** Whether the caller holds `permission` on dataset `d` (datasets.list shows only those). */
export const holdsDataset = (a: Access | undefined, permission: string, p: string, d: string): boolean =>
  !a || a.enforcement.check(a.caller, onDataset(permission, p, d)) === undefined;

/** tables.testIamPermissions: the permissions asked for that the caller holds on `t`. */
export function heldOnTable(a: Access | undefined, t: TableRef, permissions: readonly string[]): string[] {
  if (!a) return [...permissions];
  return permissions.filter((p) => a.enforcement.check(a.caller, onTable(p, t)) === undefined);
}

/** A schema (of a tables.insert or patch body) that tags a column, at any depth. */
function tagsColumns(fields: unknown): boolean {
  if (!Array.isArray(fields)) return false;
  return (fields as FieldSchema[]).some(
    (f) => (f.policyTags?.names?.length ?? 0) > 0 || tagsColumns(f.fields),
  );
}

/** jobs.list: whether the caller sees every job of the project, or only its own. */
export function jobsVisibleTo(a: Access | undefined, p: string): string | undefined {
  if (!a || a.caller.principal === OWNER) return undefined;
  return a.enforcement.check(a.caller, onProject('bigquery.jobs.listAll', p)) === undefined
    ? undefined
    : a.caller.principal;
}

/** The member a new job is kept with: who may read it without `bigquery.jobs.get`. */
export const creatorOf = (a: Access | undefined): Pick<JobRecord, 'creator'> =>
  a ? { creator: a.caller.principal } : {};

/** A job's creator may read and cancel it; anyone else needs `permission` on its project. */
function mayJob(a: Access | undefined, job: JobRecord | undefined, permission: string, p: string): void {
  if (!a || job === undefined || job.creator === a.caller.principal) return;
  enforce(a, onProject(permission, p));
}

/** One REST call as the router sees it: the path's parts after `projects/<projectId>/`. */
export interface RestCall {
  readonly method: string;
  readonly projectId: string;
  /** `datasets`, `jobs` or `queries`, then the path's next parts. */
  readonly seg: readonly (string | undefined)[];
  readonly query: URLSearchParams;
  readonly body: Json;
}

/**
 * What a REST call needs before it runs. Lists filter rather than refuse (datasets.list,
 * jobs.list: in their handlers); a query's tables are checked per statement (`mayRun`).
 */
export function authorize(em: Emulator, a: Access, call: RestCall): void {
  const { method, projectId: p, query, body } = call;
  const [coll, x, y, z, w] = call.seg;
  if (coll === 'queries' || (coll === 'jobs' && x === undefined)) {
    if (method === 'POST') enforce(a, onProject('bigquery.jobs.create', p));
    if (method === 'GET' && x !== undefined) mayJob(a, em.jobs.get(x), 'bigquery.jobs.get', p);
    return;
  }
  if (coll === 'jobs' && x !== undefined) {
    const permission =
      y === 'cancel' ? 'bigquery.jobs.update' : y === 'delete' ? 'bigquery.jobs.delete' : 'bigquery.jobs.get';
    mayJob(a, em.jobs.get(x), permission, p);
    return;
  }
  if (coll !== 'datasets') return;
  if (x === undefined) {
    if (method === 'POST') enforce(a, onProject('bigquery.datasets.create', p));
    return;
  }
  if (y === undefined) {
    if (method === 'GET') enforce(a, onDataset('bigquery.datasets.get', p, x));
    if (method === 'PATCH' || method === 'PUT') enforce(a, onDataset('bigquery.datasets.update', p, x));
    if (method === 'DELETE') {
      enforce(a, onDataset('bigquery.datasets.delete', p, x));
      if (query.get('deleteContents') === 'true')
        for (const t of em.store.tablesOf(p, x)) mayTable(a, 'bigquery.tables.delete', t);
    }
    return;
  }
  if (y !== 'tables') return;
  if (z === undefined) {
    if (method === 'GET') enforce(a, onDataset('bigquery.tables.list', p, x));
    if (method === 'POST') {
      enforce(a, onDataset('bigquery.tables.create', p, x));
      if (tagsColumns((body['schema'] as Json | undefined)?.['fields']))
        enforce(a, onDataset('bigquery.tables.setCategory', p, x));
    }
    return;
  }
  if (z.endsWith(':testIamPermissions')) return; // answers what the caller holds
  const t = { projectId: p, datasetId: x, tableId: z };
  if (w === 'insertAll') mayTable(a, 'bigquery.tables.updateData', t);
  else if (w === 'data') {
    mayTable(a, 'bigquery.tables.getData', t);
    const table = em.store.table(p, x, z);
    const selected = query
      .get('selectedFields')
      ?.split(',')
      .map((s) => s.trim().split('.')[0]?.toLowerCase() ?? '');
    if (table) mayReadWhole(a, t, table.resource, selected);
  } else if (w !== undefined) return;
  else if (method === 'GET') mayTable(a, 'bigquery.tables.get', t);
  else if (method === 'DELETE') mayTable(a, 'bigquery.tables.delete', t);
  else if (method === 'PATCH' || method === 'PUT') {
    mayTable(a, 'bigquery.tables.update', t);
    if (tagsColumns((body['schema'] as Json | undefined)?.['fields']))
      mayTable(a, 'bigquery.tables.setCategory', t);
  }
}

const sameTable = (r: TableRef, t: TableRef | undefined): boolean =>
  t !== undefined && r.projectId === t.projectId && r.datasetId === t.datasetId && r.tableId === t.tableId;

/**
 * Writing rows into `t` (a query's, a load's or a copy's destination): `bigquery.tables.updateData`
 * on it, and `bigquery.tables.create` on its dataset while it does not exist yet.
 */
export function mayWriteInto(em: Emulator, a: Access | undefined, t: TableRef): void {
  if (!a) return;
  if (!em.store.table(t.projectId, t.datasetId, t.tableId))
    enforce(a, onDataset('bigquery.tables.create', t.projectId, t.datasetId));
  mayTable(a, 'bigquery.tables.updateData', t);
}

/** A view's name on the dataset's `access` list: the view may read that dataset for its readers. */
function authorizes(em: Emulator, t: TableRef, view: TableRef): boolean {
  const access = em.store.dataset(t.projectId, t.datasetId)?.resource['access'];
  if (!Array.isArray(access)) return false;
  return access.some((e) => {
    const named = (e as { view?: TableRef } | null)?.view;
    return named !== undefined && sameTable(named, view);
  });
}

/**
 * Reading `tables`: `bigquery.tables.getData` on each; reading a view also reads what its query
 * reads, unless the view is authorized on that table's dataset (BigQuery's authorized views).
 */
function mayRead(em: Emulator, a: Access, tables: readonly TableRef[], via?: TableRef, depth = 0): void {
  for (const t of tables) {
    if (via && authorizes(em, t, via)) continue;
    mayTable(a, 'bigquery.tables.getData', t);
    const view = em.store.table(t.projectId, t.datasetId, t.tableId)?.resource['view'] as Json | undefined;
    if (typeof view?.['query'] !== 'string' || depth >= 16) continue;
    let inner: Translation;
    try {
      inner = translate(view['query'], {
        projectId: t.projectId,
        defaultDataset: undefined,
        wildcard: wildcardMatches(em),
      });
    } catch {
      continue; // a view that no longer translates fails when it runs
    }
    mayRead(em, a, inner.tables, t, depth + 1);
  }
}

/**
 * One statement of a query (each of a script's): `bigquery.tables.getData` on every table it
 * reads, `bigquery.tables.list` on each dataset whose INFORMATION_SCHEMA it reads, and on what it
 * writes: `bigquery.tables.updateData` (DML), `bigquery.tables.create` on the dataset (CREATE
 * TABLE or VIEW; a view's query is read when the view is) with `updateData` too when CREATE OR
 * REPLACE meets an existing table, `bigquery.tables.delete` (DROP).
 */
export function mayRun(em: Emulator, a: Access | undefined, tr: Translation): void {
  if (!a) return;
  const target = tr.target;
  if (target) {
    if (tr.kind === 'drop_table' || tr.kind === 'drop_view') mayTable(a, 'bigquery.tables.delete', target);
    else if (tr.kind === 'create_table' || tr.kind === 'create_view') {
      enforce(a, onDataset('bigquery.tables.create', target.projectId, target.datasetId));
      if (
        /^CREATE OR REPLACE /.test(tr.sql) &&
        em.store.table(target.projectId, target.datasetId, target.tableId)
      )
        mayTable(a, 'bigquery.tables.updateData', target);
    } else mayTable(a, 'bigquery.tables.updateData', target);
  }
  for (const d of tr.informationSchema)
    enforce(a, onDataset('bigquery.tables.list', d.projectId, d.datasetId));
  if (tr.kind === 'create_view') return;
  // The target is named first (sql.ts resolves a statement's head before its body): a later
  // mention of it (INSERT INTO t SELECT … FROM t) is a read.
  const first = target ? tr.tables.findIndex((r) => sameTable(r, target)) : -1;
  mayRead(
    em,
    a,
    tr.tables.filter((_, i) => i !== first),
  );
}

/** A job's table reference, when the job names one fully (the handler refuses what it does not). */
function refOf(raw: unknown, p: string): TableRef | undefined {
  const r = raw as Json | null | undefined;
  if (typeof r?.['datasetId'] !== 'string' || typeof r['tableId'] !== 'string') return undefined;
  return {
    projectId: typeof r['projectId'] === 'string' ? r['projectId'] : p,
    datasetId: r['datasetId'],
    tableId: r['tableId'],
  };
}

/**
 * A copy, load or extract job: `getData` on what it reads (a copy's sources, an extract's source),
 * and a copy's or load's destination written into (`mayWriteInto`).
 */
export function mayTransfer(em: Emulator, a: Access | undefined, p: string, kind: string, cfg: Json): void {
  if (!a) return;
  if (kind === 'load' || kind === 'copy') {
    const dest = refOf(cfg['destinationTable'], p);
    if (dest) mayWriteInto(em, a, dest);
  }
  if (kind === 'load') return;
  const sources: unknown[] =
    kind === 'copy' && Array.isArray(cfg['sourceTables']) ? cfg['sourceTables'] : [cfg['sourceTable']];
  const read = sources.flatMap((s) => refOf(s, p) ?? []);
  mayRead(em, a, read);
  // A copy reads every column whole: only a Fine-Grained Reader of its tagged ones may.
  if (kind === 'copy')
    for (const r of read) {
      const table = em.store.table(r.projectId, r.datasetId, r.tableId);
      if (table) mayReadWhole(a, r, table.resource);
    }
}
