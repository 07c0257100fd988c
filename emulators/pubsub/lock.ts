/**
 * One emulator per data directory: two processes appending to one log would corrupt it. The lock
 * is a file holding the owner's pid; a lock left by a dead process (after `kill -9`) is taken over.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Whether a pid belongs to a running process (also used by the local environment's record). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the data directory's lock or throws with the owner's pid; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'LOCK');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
        throw new Error(`data directory ${dataDir} is in use by another emulator (pid ${owner})`);
      }
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not lock data directory ${dataDir}`);
}
