/**
 * The Cloud Storage emulator that load and extract jobs read and write in these tests, started
 * through its package's public entry and found as a deployed BigQuery would find Cloud Storage
 * here: through STORAGE_EMULATOR_HOST, set while it runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStorageEmulator } from '@eventbus/storage-emulator/server.ts';
import { Storage } from '@google-cloud/storage';

export interface StorageStandIn {
  /** A client built while STORAGE_EMULATOR_HOST names the emulator. */
  readonly storage: Storage;
  stop(): Promise<void>;
}

export async function startStorageStandIn(projectId: string): Promise<StorageStandIn> {
  const root = mkdtempSync(join(tmpdir(), 'bq-gcs-'));
  const gcs = await startStorageEmulator({ port: 0, dataDir: root, fsync: 'none' });
  const outer = process.env.STORAGE_EMULATOR_HOST;
  process.env.STORAGE_EMULATOR_HOST = gcs.url;
  const storage = new Storage({ projectId });
  const stop = async (): Promise<void> => {
    if (outer === undefined) delete process.env.STORAGE_EMULATOR_HOST;
    else process.env.STORAGE_EMULATOR_HOST = outer;
    await gcs.close();
    rmSync(root, { recursive: true, force: true });
  };
  return { storage, stop };
}
