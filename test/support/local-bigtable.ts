/**
 * The Bigtable twin of a running local environment, read through Google's own client as the
 * owner (on its own port): where it listens comes from `<data dir>/environment.json`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bigtable } from '@google-cloud/bigtable';

/** What a start records of where its twins listen (local/environment-record.ts), as far as a test needs. */
export interface TwinHosts {
  readonly bigtableHost?: string;
  readonly firestoreHost?: string;
}

/** The environment's recorded hosts, and a client of its Bigtable twin (close it when done). */
export async function twinBigtable(dataDir: string): Promise<{ hosts: TwinHosts; client: Bigtable }> {
  const hosts = JSON.parse(readFileSync(join(dataDir, 'environment.json'), 'utf8')) as TwinHosts;
  assert.ok(hosts.bigtableHost, 'the environment records its Bigtable twin');
  // Google's client must not look for a metadata server.
  process.env['METADATA_SERVER_DETECTION'] = 'none';
  const { Bigtable } = await import('@google-cloud/bigtable');
  const client = new Bigtable({
    projectId: 'local-project',
    apiEndpoint: hosts.bigtableHost,
    metricsEnabled: false,
  });
  return { hosts, client };
}
