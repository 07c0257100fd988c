/**
 * The erased persons' list as store and forward hold it (docs/privacy.md "After an erasure"): the
 * object `privacy/erased.json` of the registry bucket, which the scheduler's erasure job publishes
 * (second-order hashes only). Read once before the first event (a function that cannot read it
 * does not start handling events: an erased person must not slip through a cold start), then
 * checked again whenever an event finds it older than the refresh time: that event waits for the
 * check (one metadata read per instance and refresh time; only a new generation is downloaded), so
 * no event is handled with a list older than that, however long the instance sat idle. A missing
 * object is an empty list; a failed check keeps the copy held, and says so in the log.
 */

import type { Bucket } from '@google-cloud/storage';
import { registryBucketName } from '../core/plan.ts';
import { SUPPRESSION_OBJECT } from '../core/privacy/erasure.ts';
import type { FunctionConfig } from '../core/runtime-config.ts';
import { DEFAULT_ERASED_EVENTS, type ErasedEvents, type Suppression } from '../core/suppression/erased.ts';
import { loadOnce } from './load-once.ts';

/** How often a function looks for a newer list (the erasure job waits twice this before completing). */
export const SUPPRESSION_REFRESH_MS = 30_000;

/** The object, as the bucket client reaches it. */
export interface SuppressionObject {
  /** Its generation, or undefined when it does not exist. */
  generation(): Promise<string | undefined>;
  download(): Promise<Buffer>;
}

export interface SuppressionList {
  /**
   * Nothing when the list held was checked within the refresh time (no promise on the hot path);
   * else the check, which an event must wait for. It rejects only while no list was ever read (a
   * failed check with a list held keeps it, logged).
   */
  ready(): Promise<void> | undefined;
  /** The list held now. */
  current(): Suppression | undefined;
}

export function createSuppressionList(options: {
  readonly object: () => Promise<SuppressionObject>;
  readonly mode: ErasedEvents;
  readonly refreshMs: number;
  readonly now?: () => number;
  readonly log?: (message: string) => void;
}): SuppressionList {
  const clock = options.now ?? Date.now;
  let held: Suppression | undefined;
  let generation: string | undefined;
  let checkedAt = 0;
  let reading: Promise<void> | undefined;
  const read = async () => {
    const object = await options.object();
    const g = await object.generation();
    checkedAt = clock();
    if (g !== undefined && g === generation && held) return;
    if (g === undefined) {
      held = { hashes: new Set(), mode: options.mode };
      generation = undefined;
      return;
    }
    const body = JSON.parse((await object.download()).toString('utf8')) as { hashes?: unknown };
    const hashes = Array.isArray(body.hashes)
      ? body.hashes.filter((h): h is string => typeof h === 'string')
      : [];
    held = { hashes: new Set(hashes), mode: options.mode };
    generation = g;
  };
  const refresh = () => {
    if (reading) return reading;
    reading = read()
      .catch((err: unknown) => {
        checkedAt = clock();
        options.log?.(
          `the erased persons' list could not be read, keeping the copy: ${(err as Error).message}`,
        );
        if (!held) throw err;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  return {
    ready: () => (held && clock() - checkedAt < options.refreshMs ? undefined : refresh()),
    current: () => held,
  };
}

/** The list of a function's registry bucket, in the settings' mode. */
export function erasedList(
  runtime: FunctionConfig,
  bucket: () => Bucket | Promise<Bucket>,
  component: string,
): SuppressionList {
  return createSuppressionList({
    mode: runtime.settings.privacy?.erased_events ?? DEFAULT_ERASED_EVENTS,
    refreshMs: SUPPRESSION_REFRESH_MS,
    object: async () => {
      const file = (await bucket()).file(SUPPRESSION_OBJECT);
      return {
        generation: async () => {
          try {
            const [metadata] = await file.getMetadata();
            return String(metadata.generation);
          } catch (err) {
            if ((err as { code?: unknown }).code === 404) return undefined;
            throw err;
          }
        },
        download: async () => (await file.download())[0],
      };
    },
    log: (message) => console.log(JSON.stringify({ severity: 'WARNING', message, component })),
  });
}

/**
 * The erased persons' list of a delivery function (forward, forward-catalog), read from the
 * environment's registry bucket with a Storage client loaded on first use.
 */
export function registryErasedList(runtime: FunctionConfig, component: string): SuppressionList {
  const bucket = loadOnce(async () => {
    const { Storage } = await import('@google-cloud/storage');
    return new Storage({ projectId: runtime.project }).bucket(
      registryBucketName(runtime.project, runtime.plan.environment),
    );
  });
  return erasedList(runtime, bucket, component);
}
