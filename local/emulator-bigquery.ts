/**
 * A BigQuery client pointed at the local emulator. Its own module (re-exported by
 * provision.ts) so the CLI's `sql` command loads the BigQuery client without Pub/Sub's.
 */
import { BigQuery, type BigQueryOptions } from '@google-cloud/bigquery';
import { PassThroughClient } from 'google-auth-library';

/** A BigQuery client pointed at an emulator; no credentials are looked up. */
export function emulatorBigQuery(
  project: string,
  endpoint: string,
  options: Pick<BigQueryOptions, 'autoRetry'> = {},
): BigQuery {
  return new BigQuery({
    projectId: project,
    apiEndpoint: endpoint,
    authClient: new PassThroughClient(),
    ...options,
  });
}
