/**
 * The scheduler's lock objects in the registry bucket (core/scheduler/dispatch.ts): read with their
 * generation, written only over the generation the writer knows (`ifGenerationMatch`, 0 to create
 * one). A write refused with 412 means another runner took the lock: `LockLost`.
 */
import type { Bucket } from '@google-cloud/storage';
import { FREE_LOCK, type LockState, lockPath, parseLock } from '../core/scheduler/dispatch.ts';

/** Another runner wrote the lock since this one read or wrote it: nothing may be committed. */
export class LockLost extends Error {}

export interface LockRead {
  readonly state: LockState;
  /** 0 when the lock object does not exist yet. */
  readonly generation: number;
}

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;

export class LockStore {
  private readonly bucket: Bucket;

  constructor(bucket: Bucket) {
    this.bucket = bucket;
  }

  async read(kind: string, name: string): Promise<LockRead> {
    const file = this.bucket.file(lockPath(kind, name));
    try {
      const [meta] = await file.getMetadata();
      const generation = Number(meta.generation);
      const [bytes] = await this.bucket.file(file.name, { generation }).download();
      return { state: parseLock(bytes.toString('utf8')), generation };
    } catch (err) {
      // Deleted between the two reads, or never written: a free lock at generation 0.
      if (statusOf(err) === 404) return { state: FREE_LOCK, generation: 0 };
      throw err;
    }
  }

  /** Writes the lock over `generation` and returns the new generation (the fencing token). */
  async write(kind: string, name: string, state: LockState, generation: number): Promise<number> {
    const file = this.bucket.file(lockPath(kind, name));
    try {
      await file.save(JSON.stringify(state), {
        resumable: false,
        contentType: 'application/json',
        preconditionOpts: { ifGenerationMatch: generation },
      });
    } catch (err) {
      if (statusOf(err) === 412)
        throw new LockLost(
          `locks/${kind}/${name} changed since generation ${generation}: another runner has it`,
        );
      throw err;
    }
    // The upload's own answer names the generation it created (a later read could see another's).
    const created = Number(file.metadata.generation);
    if (!Number.isFinite(created) || created <= 0)
      throw new Error(`no generation in the answer for ${file.name}`);
    return created;
  }

  /** Throws LockLost unless the lock is still at `generation` (checked before committing state elsewhere). */
  async fence(kind: string, name: string, generation: number): Promise<void> {
    const [meta] = await this.bucket
      .file(lockPath(kind, name))
      .getMetadata()
      .catch((err: unknown) => {
        if (statusOf(err) === 404) return [{ generation: 0 }];
        throw err;
      });
    if (Number(meta.generation) !== generation)
      throw new LockLost(`locks/${kind}/${name} is at generation ${meta.generation}, not ${generation}`);
  }
}
