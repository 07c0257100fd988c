/**
 * One owner per data directory (or any other resource a process must hold alone): a lock file
 * records the owner's pid, its start time and its command line. A lock whose owner has died is
 * taken over at once, whatever state the dead process is in:
 * - a pid that no longer exists, or a zombie (died, not yet reaped: `kill(pid, 0)` still
 *   succeeds for it, which refused restarts right after a `kill -9`);
 * - a pid reused by another process (its start time in /proc/<pid>/stat differs);
 * - an unreadable or garbled lock file.
 * Where /proc does not exist, liveness falls back to `kill(pid, 0)`.
 *
 * Creation is atomic (the record is written to a temporary file, then hard-linked to the lock
 * path, which fails if the lock exists). Taking over a stale lock happens under a short-lived
 * guard file, so two starters racing for the same stale lock cannot both win.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';

/** Who holds a lock. `start` is the kernel's start time of the process (clock ticks since boot). */
export interface OwnerRecord {
  readonly pid: number;
  readonly start: string | null;
  readonly command: string;
}

/** Thrown when a live process holds the lock; names it. */
export class LockHeldError extends Error {
  readonly owner: OwnerRecord;
  constructor(what: string, holder: string, owner: OwnerRecord) {
    super(`${what} is in use by another ${holder} (pid ${owner.pid}: ${owner.command || 'command unknown'})`);
    this.name = 'LockHeldError';
    this.owner = owner;
  }
}

/** The state and start time of a process from /proc, or undefined if it does not exist. */
export function procStat(pid: number): { state: string; start: string } | undefined | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return undefined;
    return null; // no /proc here (or not readable): the caller falls back
  }
  // The command name (field 2) is in parentheses and may hold spaces or ')': read after the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state); field 22 (starttime) is rest[19].
  return { state: rest[0] ?? '?', start: rest[19] ?? '' };
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ').slice(0, 200);
  } catch {
    return '';
  }
}

/** This process's record. */
export function selfRecord(): OwnerRecord {
  const stat = procStat(process.pid);
  return {
    pid: process.pid,
    start: stat ? stat.start : null,
    command: commandOf(process.pid) || process.argv.join(' '),
  };
}

/** Whether the recorded owner is still the same live process. */
export function ownerAlive(owner: OwnerRecord): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  const stat = procStat(owner.pid);
  if (stat === undefined) return false;
  if (stat === null) {
    try {
      process.kill(owner.pid, 0);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  if (stat.state === 'Z' || stat.state === 'X' || stat.state === 'x') return false; // died, not reaped
  return owner.start === null || owner.start === stat.start;
}

function readRecord(path: string): OwnerRecord | undefined | 'garbled' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const r = JSON.parse(text) as Partial<OwnerRecord>;
    if (typeof r.pid !== 'number') return 'garbled';
    return {
      pid: r.pid,
      start: typeof r.start === 'string' ? r.start : null,
      command: String(r.command ?? ''),
    };
  } catch {
    // Older locks held only the pid: read it, with no start time to compare.
    const pid = Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? { pid, start: null, command: '' } : 'garbled';
  }
}

/** Something to block on for a short, synchronous pause while a dying owner goes. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

const same = (a: OwnerRecord, b: OwnerRecord) => a.pid === b.pid && a.start === b.start;

function createExclusive(path: string, text: string): boolean {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
}

/**
 * Takes the lock at `path` for this process, or throws LockHeldError naming the live owner:
 * "`what` is in use by another `holder` (pid N: command)". A live owner is given `graceMs` to
 * exit first (a restart typed right after a kill -9 may look before the kernel has ended it).
 * Returns the release function, which removes the lock only while it is still this process's.
 */
export function acquireOwnerLock(path: string, what: string, holder: string, graceMs = 1000): () => void {
  const me = selfRecord();
  const text = JSON.stringify(me);
  const deadline = Date.now() + graceMs;
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (createExclusive(path, text)) {
      return () => {
        const now = readRecord(path);
        if (now && now !== 'garbled' && same(now, me)) rmSync(path, { force: true });
      };
    }
    const held = readRecord(path);
    if (held === undefined) continue; // released meanwhile
    if (held !== 'garbled' && ownerAlive(held)) {
      // An owner just sent SIGKILL may still be running for a moment: give it `graceMs` to go.
      if (Date.now() >= deadline) throw new LockHeldError(what, holder, held);
      Atomics.wait(PAUSE, 0, 0, 20);
      continue;
    }
    takeOverStale(path, held);
  }
  throw new Error(`could not lock ${what}: the lock at ${path} keeps changing`);
}

/** Removes a stale lock, under a guard so that two takers cannot both remove a fresh one. */
function takeOverStale(path: string, stale: OwnerRecord | 'garbled'): void {
  const guard = `${path}.takeover`;
  if (!createExclusive(guard, JSON.stringify(selfRecord()))) {
    const g = readRecord(guard);
    if (g === 'garbled' || (g !== undefined && !ownerAlive(g))) rmSync(guard, { force: true });
    return; // someone else is taking it over; look again
  }
  try {
    const now = readRecord(path);
    const unchanged =
      now !== undefined &&
      (now === 'garbled' ? stale === 'garbled' : stale !== 'garbled' && same(now, stale));
    if (unchanged) unlinkSync(path);
  } finally {
    rmSync(guard, { force: true });
  }
}
