/**
 * The erasure job's dependencies in the cloud (and on the emulators): request objects in the
 * registry bucket, the DML as BigQuery query jobs (their affected rows from the job's results),
 * the suppression list as one object store and forward re-read. functions/schedule/index.ts builds
 * it; the tests build theirs the same way against the local emulators.
 */
import type { BigQuery } from '@google-cloud/bigquery';
import type { Bucket } from '@google-cloud/storage';
import { plainValue } from '../../adapters/user-sql.ts';
import {
  ERASURE_REQUESTS_PREFIX,
  type ErasureRequest,
  SUPPRESSION_OBJECT,
} from '../../core/privacy/erasure.ts';
import type { ErasureDeps } from './erasures.ts';

export interface ErasureRuntimeArgs {
  readonly bigquery: BigQuery;
  readonly bucket: Bucket;
  /** The events dataset: the default dataset of the syncs' models. */
  readonly dataset: string;
}

type Params = Readonly<Record<string, unknown>>;
type Types = Readonly<Record<string, readonly string[]>>;

export function erasureRuntime(
  args: ErasureRuntimeArgs,
): Pick<ErasureDeps, 'pending' | 'read' | 'write' | 'remove' | 'select' | 'dml' | 'writeSuppression'> {
  const { bigquery, bucket } = args;
  const job = async (sql: string, params: Params, types: Types) => {
    const [j] = await bigquery.createQueryJob({
      query: sql,
      params: { ...params },
      types: { ...types } as Record<string, string[]>,
      useLegacySql: false,
      defaultDataset: { datasetId: args.dataset },
    });
    const [rows, , response] = await j.getQueryResults({ autoPaginate: false });
    return {
      rows: rows as unknown[],
      affected: Number((response as { numDmlAffectedRows?: string })?.numDmlAffectedRows ?? 0),
    };
  };
  return {
    pending: async () => {
      const [files] = await bucket.getFiles({
        prefix: ERASURE_REQUESTS_PREFIX,
        autoPaginate: false,
        maxResults: 100,
      });
      return files
        .map((f) => f.name)
        .filter((n) => n.endsWith('.json'))
        .sort();
    },
    read: async (name) => {
      try {
        const [bytes] = await bucket.file(name).download();
        return JSON.parse(bytes.toString('utf8')) as ErasureRequest;
      } catch (err) {
        if ((err as { code?: unknown }).code === 404) return undefined;
        throw err;
      }
    },
    write: async (name, request) => {
      await bucket
        .file(name)
        .save(JSON.stringify(request), { resumable: false, contentType: 'application/json' });
    },
    remove: async (name) => {
      await bucket.file(name).delete({ ignoreNotFound: true });
    },
    select: async (sql, params, types) =>
      (await job(sql, params, types)).rows.map((r) => plainValue(r) as Record<string, unknown>),
    dml: async (sql, params, types) => (await job(sql, params, types)).affected,
    writeSuppression: async (hashes) => {
      await bucket
        .file(SUPPRESSION_OBJECT)
        .save(JSON.stringify({ hashes }), { resumable: false, contentType: 'application/json' });
    },
  };
}
