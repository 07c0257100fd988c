/**
 * The console's replays as objects in the registry bucket (`replays/<id>.json`, core/scheduler/replays.ts):
 * the studio creates one (only if absent) when a person starts a replay, the scheduler's Replay
 * job reads it and writes it once more, finished, with its figures. Ids sort by time, so the
 * newest are the last names of the listing.
 */
import type { Bucket } from '@google-cloud/storage';
import {
  REPLAY_ID_PATTERN,
  REPLAYS_PREFIX,
  type ReplayRecord,
  replayId,
  replayPath,
} from '../core/scheduler/replays.ts';

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;

export class ReplayStore {
  private readonly bucket: Bucket;

  constructor(bucket: Bucket) {
    this.bucket = bucket;
  }

  async create(record: ReplayRecord): Promise<void> {
    await this.bucket.file(replayPath(record.id)).save(JSON.stringify(record), {
      resumable: false,
      contentType: 'application/json',
      preconditionOpts: { ifGenerationMatch: 0 },
    });
  }

  async read(id: string): Promise<ReplayRecord | undefined> {
    // A run message naming something that is not a replay id finds no replay.
    if (!REPLAY_ID_PATTERN.test(id)) return undefined;
    try {
      const [bytes] = await this.bucket.file(replayPath(id)).download();
      return JSON.parse(bytes.toString('utf8')) as ReplayRecord;
    } catch (err) {
      if (statusOf(err) === 404) return undefined;
      throw err;
    }
  }

  /**
   * Marks a replay for cancelling (the Replay job stops before its next chunk), unless it has
   * finished: the object is rewritten only if no one wrote it since it was read, so a replay the
   * job finishes meanwhile is never turned back into a requested one. The record as it stands.
   */
  async requestCancel(id: string, by: string, now: Date): Promise<ReplayRecord | undefined> {
    if (!REPLAY_ID_PATTERN.test(id)) return undefined;
    const file = this.bucket.file(replayPath(id));
    for (let tries = 0; ; tries++) {
      let generation: string | number;
      let record: ReplayRecord;
      try {
        const [metadata] = await file.getMetadata();
        generation = metadata.generation as string | number;
        // Read after the generation: if it changed in between, the save below is refused and retried.
        const [bytes] = await file.download();
        record = JSON.parse(bytes.toString('utf8')) as ReplayRecord;
      } catch (err) {
        if (statusOf(err) === 404) return undefined;
        throw err;
      }
      if (record.status === 'finished' || record.cancel_requested_at !== undefined) return record;
      const marked: ReplayRecord = {
        ...record,
        cancel_requested_at: now.toISOString(),
        cancel_requested_by: by,
      };
      try {
        await file.save(JSON.stringify(marked), {
          resumable: false,
          contentType: 'application/json',
          preconditionOpts: { ifGenerationMatch: generation },
        });
        return marked;
      } catch (err) {
        if (statusOf(err) !== 412 || tries >= 3) throw err;
      }
    }
  }

  async write(record: ReplayRecord): Promise<void> {
    await this.bucket
      .file(replayPath(record.id))
      .save(JSON.stringify(record), { resumable: false, contentType: 'application/json' });
  }

  async delete(id: string): Promise<void> {
    await this.bucket
      .file(replayPath(id))
      .delete()
      .catch((err: unknown) => {
        if (statusOf(err) !== 404) throw err;
      });
  }

  /** The newest `limit` replays (requested at or after `since`), newest first. */
  async recent(limit: number, since?: Date): Promise<ReplayRecord[]> {
    const [files] = await this.bucket.getFiles({ prefix: REPLAYS_PREFIX });
    const after = since ? replayId(since, '') : '';
    const names = files
      .map((f) => f.name)
      .filter((n) => n.endsWith('.json') && n.slice(REPLAYS_PREFIX.length) >= after)
      .sort()
      .reverse()
      .slice(0, limit);
    const records = await Promise.all(names.map((n) => this.read(n.slice(REPLAYS_PREFIX.length, -5))));
    return records.filter((r): r is ReplayRecord => r !== undefined);
  }

  /**
   * Replays not finished, requested in the last week (an older one was given up long ago): what
   * the tick looks at, a read of a few small objects.
   */
  async pending(now: Date): Promise<ReplayRecord[]> {
    return (await this.recent(100, new Date(now.getTime() - 7 * 86_400_000))).filter(
      (r) => r.status !== 'finished',
    );
  }
}
