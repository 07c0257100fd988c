/**
 * One emulator per data directory: two processes appending to one log would corrupt it. The
 * owner lock (emulators/common/owner-lock.ts) tells a dead owner from a live one reliably, so a
 * restart right after `kill -9` is accepted and a second emulator on the same directory is not.
 */
import { join } from 'node:path';
import { acquireOwnerLock } from '@eventbus/emulator-common/owner-lock.ts';

/** Takes the data directory's lock or throws naming the live owner; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  return acquireOwnerLock(join(dataDir, 'LOCK'), `data directory ${dataDir}`, 'emulator');
}
