/**
 * The clock and event-time window the creator's unit tests draft and validate under: a fixed
 * "now" and the settings' default window, so a sample's times are judged as the gateway would.
 */
import { normalizeOptions } from '../../core/event.ts';
import type { TimeWindow } from '../../core/samples/index.ts';

export const CREATOR_OPTIONS = normalizeOptions({ name: 't', project: 't', region: 'europe-west1' } as never);
export const CREATOR_NOW = Date.parse('2026-11-23T12:00:00Z');
export const CREATOR_WINDOW: TimeWindow = {
  now: CREATOR_NOW,
  pastMs: CREATOR_OPTIONS.eventTimePastMs,
  futureMs: CREATOR_OPTIONS.eventTimeFutureMs,
};
