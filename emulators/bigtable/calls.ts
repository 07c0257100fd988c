/**
 * The emulator's count of the data API calls it answered, for a test or a person to set against
 * what a model says the code does (the bill, #97). The state log (state.ts) cannot say it: a read
 * writes no record, a CheckAndMutateRow whose chosen branch is empty writes none either, and a
 * record does not say which method made it.
 *
 * Per table and method: the calls answered (refused ones are not counted), the rows they read
 * (ReadRows: rows answered; CheckAndMutateRow and ReadModifyWriteRow: the one row they check or
 * read) and the rows they mutated (a row a MutateRows entry, a CheckAndMutateRow whose chosen
 * mutations are not empty, ...). Kept in `calls.json` in the data directory, rewritten whole (a
 * temporary file renamed over it) at most every FLUSH_MS and on close, and read back on start, so
 * the counts run across restarts as the log does. A `kill -9` loses at most the last FLUSH_MS.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CALLS_FILE = 'calls.json';
/** How long a change waits before the file is rewritten (ms). */
const FLUSH_MS = 100;

export interface MethodCount {
  calls: number;
  rowsRead: number;
  rowsMutated: number;
}

/** Table name → method → counts. */
export type CallCounts = Record<string, Record<string, MethodCount>>;

/** The counts of a data directory (empty when none were written). */
export function readCallCounts(dataDir: string): CallCounts {
  const path = join(dataDir, CALLS_FILE);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as CallCounts) : {};
}

export class CallCounter {
  private readonly path: string;
  private readonly counts: CallCounts;
  private timer: NodeJS.Timeout | undefined;

  constructor(dataDir: string) {
    this.path = join(dataDir, CALLS_FILE);
    this.counts = readCallCounts(dataDir);
  }

  /** One answered call of `method` on `table`. */
  count(table: string, method: string, rows: { read?: number; mutated?: number } = {}): void {
    const byMethod = this.counts[table] ?? {};
    this.counts[table] = byMethod;
    const c = byMethod[method] ?? { calls: 0, rowsRead: 0, rowsMutated: 0 };
    byMethod[method] = c;
    c.calls++;
    c.rowsRead += rows.read ?? 0;
    c.rowsMutated += rows.mutated ?? 0;
    this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** The counts so far (a copy). */
  snapshot(): CallCounts {
    return structuredClone(this.counts);
  }

  /** Writes the file now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(this.counts, null, 1)}\n`);
    renameSync(tmp, this.path);
  }
}
