/**
 * The emulator's `datasets` resource: insert, get, patch, delete and list.
 * Every function takes the emulator's state (state.ts) first.
 */
import { ApiError } from './errors.ts';
import { quoteIdent, schemaName } from './sql.ts';
import { type Emulator, etag, type Json, LOCATION, nowMs, paginate } from './state.ts';

export async function insertDataset(em: Emulator, projectId: string, body: Json): Promise<Json> {
  const ref = (body['datasetReference'] ?? {}) as Json;
  const datasetId = ref['datasetId'];
  if (typeof datasetId !== 'string' || !/^[A-Za-z0-9_]{1,1024}$/.test(datasetId))
    throw new ApiError(
      'invalid',
      `Invalid dataset ID "${String(datasetId)}". Dataset IDs must be alphanumeric (plus underscores) and must be at most 1024 characters long.`,
    );
  const now = nowMs();
  const resource: Json = {
    kind: 'bigquery#dataset',
    etag: etag(),
    id: `${projectId}:${datasetId}`,
    selfLink: `${em.baseUrl}/bigquery/v2/projects/${projectId}/datasets/${datasetId}`,
    datasetReference: { projectId, datasetId },
    location: typeof body['location'] === 'string' ? body['location'] : LOCATION,
    creationTime: now,
    lastModifiedTime: now,
    type: 'DEFAULT',
  };
  for (const k of [
    'description',
    'friendlyName',
    'labels',
    'defaultTableExpirationMs',
    'defaultPartitionExpirationMs',
    'access',
  ])
    if (body[k] !== undefined) resource[k] = body[k];
  return em.store.exclusive(async (conn) => {
    if (em.store.dataset(projectId, datasetId))
      throw new ApiError('duplicate', `Already Exists: Dataset ${projectId}:${datasetId}`);
    // DuckDB schema names ignore case; two such datasets would share storage.
    const clash = [...em.store.datasets.values()].find(
      (d) =>
        d.projectId.toLowerCase() === projectId.toLowerCase() &&
        d.datasetId.toLowerCase() === datasetId.toLowerCase(),
    );
    if (clash)
      throw new ApiError(
        'invalid',
        `Dataset ${projectId}:${datasetId} differs only in case from ${clash.projectId}:${clash.datasetId}; the emulator cannot keep both`,
      );
    await conn.run('BEGIN');
    try {
      await conn.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schemaName(projectId, datasetId))}`);
      await em.store.putDataset(conn, { projectId, datasetId, resource });
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
    return resource;
  });
}

export async function patchDataset(
  em: Emulator,
  projectId: string,
  datasetId: string,
  body: Json,
): Promise<Json> {
  return em.store.exclusive(async (conn) => {
    const ds = em.datasetOr404(projectId, datasetId);
    checkEtag(body, ds.resource);
    const resource = { ...ds.resource };
    for (const k of [
      'description',
      'friendlyName',
      'labels',
      'defaultTableExpirationMs',
      'defaultPartitionExpirationMs',
      'access',
    ])
      if (body[k] !== undefined) resource[k] = body[k];
    resource['lastModifiedTime'] = nowMs();
    resource['etag'] = etag();
    await em.store.putDataset(conn, { ...ds, resource });
    return resource;
  });
}

export async function deleteDataset(
  em: Emulator,
  projectId: string,
  datasetId: string,
  deleteContents: boolean,
): Promise<void> {
  await em.store.exclusive(async (conn) => {
    em.datasetOr404(projectId, datasetId);
    if (!deleteContents && em.store.tablesOf(projectId, datasetId).length > 0)
      throw new ApiError('resourceInUse', `Dataset ${projectId}:${datasetId} is still in use`);
    await conn.run('BEGIN');
    try {
      await conn.run(`DROP SCHEMA IF EXISTS ${quoteIdent(schemaName(projectId, datasetId))} CASCADE`);
      await em.store.deleteDataset(conn, projectId, datasetId);
      await conn.run('COMMIT');
    } catch (e) {
      await conn.run('ROLLBACK');
      throw e;
    }
  });
}

/** datasets.list; with `visible`, only the datasets it keeps (with `--iam`: those the caller may get). */
export function listDatasets(
  em: Emulator,
  projectId: string,
  query: URLSearchParams,
  visible: (datasetId: string) => boolean = () => true,
): Json {
  const all = [...em.store.datasets.values()]
    .filter((d) => d.projectId === projectId && visible(d.datasetId))
    .sort((a, b) => a.datasetId.localeCompare(b.datasetId))
    .map((d) => ({
      kind: 'bigquery#dataset',
      id: d.resource['id'],
      datasetReference: d.resource['datasetReference'],
      location: d.resource['location'],
      ...(d.resource['labels'] ? { labels: d.resource['labels'] } : {}),
      ...(d.resource['friendlyName'] ? { friendlyName: d.resource['friendlyName'] } : {}),
    }));
  const { page, next } = paginate(all, query);
  return {
    kind: 'bigquery#datasetList',
    etag: etag(),
    datasets: page,
    ...(next ? { nextPageToken: next } : {}),
  };
}

/**
 * An update that names an etag (Google's client sends it as `If-Match` and in the body) applies
 * only to the version it read: another one is 412, as BigQuery answers it.
 */
export function checkEtag(body: Json, resource: Json): void {
  const given = body['etag'];
  if (typeof given === 'string' && given !== resource['etag'])
    throw new ApiError('conditionNotMet', 'Precondition check failed.');
}
