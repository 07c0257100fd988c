/**
 * The `Model` job of the scheduler (docs/sessions.md, docs/scheduler.md): one instance per
 * incremental model (`identity_map`, `sessions`), every `warehouse.models.every` (15 minutes by
 * default). A run is one BigQuery script (core/models/sessions.ts, core/models/identity-graph.ts) that reads the
 * events past the model's watermark, writes what changed and moves the watermark in one
 * transaction, so a chunk is a whole run and a repeated run writes nothing.
 */
import { identityRunSql } from '../../core/models/identity-graph.ts';
import {
  DEFAULT_MODEL_EVERY,
  MODELS,
  type ModelName,
  modelOptions,
  modelsEnabled,
} from '../../core/models/models.ts';
import { type ModelRun, sessionsRunSql } from '../../core/models/sessions.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { Job } from './runner.ts';

export const MODEL_KIND = 'Model';

/**
 * How far a run's `@upto` trails its slot: rows still in BigQuery's streaming buffer (a row's
 * received_at is its publish time, earlier than its arrival) are read by the next run instead.
 */
export const MODEL_TRAIL_MS = 3 * 60_000;

export interface ModelDeps {
  readonly settings: Readonly<Settings>;
  /** Runs a script with named parameters (`types` for the ones a value cannot tell); its rows. */
  readonly query: (
    sql: string,
    params: Readonly<Record<string, unknown>>,
    types: Record<string, string[]>,
  ) => Promise<readonly Readonly<Record<string, unknown>>[]>;
}

/** The script of one model's run up to `upto`. */
export function modelRun(settings: Readonly<Settings>, model: ModelName, upto: Date): ModelRun {
  const options = modelOptions(settings);
  return model === 'sessions' ? sessionsRunSql(options, upto) : identityRunSql(options, upto);
}

export function modelJob(deps: ModelDeps): Job {
  const every = deps.settings.warehouse?.models?.every ?? DEFAULT_MODEL_EVERY;
  const enabled = modelsEnabled(deps.settings);
  return {
    kind: MODEL_KIND,
    scheduled: () =>
      Promise.resolve(enabled ? MODELS.map((name) => ({ kind: MODEL_KIND, name, schedule: { every } })) : []),
    async chunk(ctx) {
      const model = MODELS.find((m) => m === ctx.run.name);
      if (!enabled || !model) return { done: true, summary: { skipped: `no model ${ctx.run.name}` } };
      // The slot, not the clock: a retried chunk of the same run reads up to the same instant.
      const upto = new Date(Date.parse(ctx.run.slot) - MODEL_TRAIL_MS);
      const run = modelRun(deps.settings, model, upto);
      await ctx.fence();
      const rows = await deps.query(run.sql, run.params, { conversions: ['STRING'] });
      return { done: true, summary: { model, upto: upto.toISOString(), ...(rows[0] ?? {}) } };
    },
  };
}
