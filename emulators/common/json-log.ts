/**
 * A state kept as JSON records in an append-only log (append-log.ts): on open, every intact
 * record is replayed into memory, then the log is rewritten as the state's own snapshot; each
 * change is applied in memory first and answered once its record is durable. The log is
 * compacted (rewritten as a snapshot) when it has grown past twice its last snapshot.
 */
import { AppendLog, type FsyncPolicy, frame, readLog } from './append-log.ts';

/** Compaction waits for at least this much log (bytes), so a small state never rewrites. */
const COMPACT_MIN_BYTES = 1 << 20;

export interface JsonState<R> {
  /** Applies one record to the in-memory state (on replay and on each change). */
  apply(record: R): void;
  /** The records that rebuild the whole current state. */
  snapshot(): R[];
}

const encode = (records: readonly unknown[]): Buffer[] =>
  records.map((r) => frame(Buffer.from(JSON.stringify(r))));

const bytesOf = (chunks: readonly Buffer[]): number => chunks.reduce((n, b) => n + b.length, 0);

export class JsonLog<R> {
  private readonly state: JsonState<R>;
  private readonly log: AppendLog;
  private snapshotBytes: number;

  private constructor(state: JsonState<R>, log: AppendLog, snapshotBytes: number) {
    this.state = state;
    this.log = log;
    this.snapshotBytes = snapshotBytes;
  }

  /** Replays `path` into `state`, then rewrites the log as the state's snapshot. */
  static async open<R>(path: string, policy: FsyncPolicy, state: JsonState<R>): Promise<JsonLog<R>> {
    for (const payload of readLog(path).records) state.apply(JSON.parse(payload.toString('utf8')) as R);
    const snapshot = encode(state.snapshot());
    const log = await AppendLog.create(path, policy, snapshot);
    return new JsonLog(state, log, bytesOf(snapshot));
  }

  /** Applies `record` in memory now, and resolves once it is on disk (per the fsync policy). */
  async commit(record: R): Promise<void> {
    this.state.apply(record);
    await this.log.append(encode([record]));
    if (this.log.size > COMPACT_MIN_BYTES && this.log.size > 2 * this.snapshotBytes)
      this.log.requestCompaction(() => {
        const snap = encode(this.state.snapshot());
        this.snapshotBytes = bytesOf(snap);
        return snap;
      });
  }

  close(): Promise<void> {
    return this.log.close();
  }
}
