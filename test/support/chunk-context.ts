/**
 * A scheduler chunk's context for a job under test (functions/schedule/runner.ts): the run as a
 * message names it, the first chunk, no cursor, and a fence that always holds.
 */
import type { RunTrigger } from '../../core/scheduler/dispatch.ts';
import type { ChunkContext } from '../../functions/schedule/runner.ts';

export function firstChunk(
  kind: string,
  name: string,
  now: Date,
  options: { readonly runId?: string; readonly trigger?: RunTrigger } = {},
): ChunkContext {
  return {
    run: { kind, name, slot: now.toISOString(), trigger: options.trigger ?? 'schedule' },
    runId: options.runId ?? 'r',
    cursor: undefined,
    chunk: 0,
    now,
    fence: async () => {},
  };
}
