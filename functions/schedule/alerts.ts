/**
 * The `Alert` job of the scheduler (docs/alerts.md): at each slot an alert's condition runs as one
 * query, the incident state machine (core/alerts/alerts.ts) decides from the alert's newest
 * `alert_states` row whether it fires or resolves, the notice goes to its connection, and the new
 * state is written. A manual run (the test-fire button, `eventbus alert test`) evaluates the
 * condition and sends a `test` message without touching the incident.
 *
 * The notice is sent before the state row is written: a send that fails fails the chunk, which
 * the scheduler retries, so an incident is not recorded as announced before it was. (A row whose
 * write fails after a send succeeded would announce it again on the retry: at least once.)
 */

import { currentSpecs, type Snapshot } from '../../adapters/registry.ts';
import {
  ALERT_KIND,
  ALERT_OK,
  type AlertMessage,
  type AlertQuery,
  type AlertState,
  type AlertVersion,
  alertBody,
  alertReading,
  DEFAULT_CLEAR_AFTER,
  nextAlertState,
} from '../../core/alerts/alerts.ts';
import type { AlertSpec } from '../../schemas/alert.ts';
import type { Settings } from '../../schemas/settings.ts';
import { type ConnectionDeps, postJson } from './connections.ts';
import type { Job } from './runner.ts';

/** A row of `alert_states` (core/warehouse/warehouse.ts alertStateColumns). */
export interface AlertStateRow extends AlertState {
  readonly alert: string;
  readonly version: string;
  readonly evaluated_at: string;
  readonly breached: boolean;
  readonly value: number | null;
  readonly summary: string;
  readonly notice: 'fired' | 'resolved' | null;
  readonly recorded_at: string;
}

export interface AlertsDeps extends ConnectionDeps {
  readonly settings: Settings;
  readonly alerts: (fresh: boolean) => Promise<Snapshot>;
  /** The condition's SQL at `now`, with the environment's tables (core/alerts/alerts.ts alertQuery). */
  readonly sql: (spec: AlertSpec, now: Date) => AlertQuery;
  /** Runs one SELECT with named parameters; its first row (or an empty one). */
  readonly query: (q: AlertQuery) => Promise<Readonly<Record<string, unknown>>>;
  /** The alert's newest state, or undefined before its first evaluation. */
  readonly readState: (alert: string) => Promise<AlertState | undefined>;
  readonly writeState: (row: AlertStateRow, insertId: string) => Promise<void>;
  readonly log?: (entry: Readonly<Record<string, unknown>>) => void;
}

const enabled = (s: Snapshot): AlertVersion[] =>
  currentSpecs<AlertSpec>(s).filter((a) => a.spec.enabled !== false);

export function alertsJob(deps: AlertsDeps): Job {
  /** Sends one message to the alert's connection; a failure throws (the chunk is retried). */
  const notify = async (alert: AlertVersion, message: AlertMessage): Promise<void> => {
    const id = alert.spec.notify.connection;
    const c = (deps.settings.connections ?? []).find((x) => x.id === id);
    if (!c || (c.type !== 'chat' && c.type !== 'webhook'))
      throw new Error(
        `alert ${alert.name}: connection ${id} is not a chat or webhook connection of the settings`,
      );
    const sent = await postJson(deps, c, alertBody(c.type, message));
    if (!sent.ok) throw new Error(`alert ${alert.name}: ${message.status} not sent to ${id}: ${sent.reason}`);
  };
  return {
    kind: ALERT_KIND,
    async scheduled() {
      return enabled(await deps.alerts(false)).map((a) => ({
        kind: ALERT_KIND,
        name: a.name,
        schedule: a.spec.schedule,
      }));
    },
    async chunk(ctx) {
      const manual = ctx.run.trigger === 'manual';
      // A test fire right after an apply must find the alert: the fresh read.
      const all = manual
        ? currentSpecs<AlertSpec>(await deps.alerts(true))
        : enabled(await deps.alerts(false));
      const alert = all.find((a) => a.name === ctx.run.name);
      if (!alert) return { done: true, summary: { skipped: 'the alert is gone or off' } };
      const at = new Date(ctx.run.slot);
      const reading = alertReading(alert.spec.condition, await deps.query(deps.sql(alert.spec, at)));
      const base = {
        alert: alert.name,
        version: alert.version,
        value: reading.value,
        summary: reading.summary,
        at: at.toISOString(),
      };
      if (manual) {
        await ctx.fence();
        await notify(alert, { ...base, status: 'test', incident: null });
        return { done: true, summary: { test: true, breached: reading.breached } };
      }
      const prev = (await deps.readState(alert.name)) ?? ALERT_OK;
      const { state, notice } = nextAlertState(
        prev,
        reading.breached,
        alert.spec.clear_after ?? DEFAULT_CLEAR_AFTER,
        `${alert.name}@${at.toISOString()}`,
      );
      await ctx.fence();
      if (notice) await notify(alert, { ...base, status: notice, incident: state.incident });
      await deps.writeState(
        {
          ...state,
          alert: alert.name,
          version: alert.version,
          evaluated_at: at.toISOString(),
          breached: reading.breached,
          value: reading.value,
          summary: reading.summary,
          notice,
          recorded_at: ctx.now.toISOString(),
        },
        ctx.runId,
      );
      if (notice)
        deps.log?.({
          severity: notice === 'fired' ? 'WARNING' : 'INFO',
          message: `alert ${alert.name} ${notice}: ${reading.summary}`,
        });
      return {
        done: true,
        summary: { version: alert.version, breached: reading.breached, status: state.status, notice },
      };
    },
  };
}
