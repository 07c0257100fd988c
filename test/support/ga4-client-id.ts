/** The `client_id` the GA4 driver sends for a stored event (its time set to a minute ago). */
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../core/event.ts';
import { ga4MpDriver } from '../../core/platforms/ga4/index.ts';
import type { Destination } from '../../schemas/settings.ts';

export const GA4_DESTINATION: Destination = {
  id: 'ga',
  type: 'ga4_mp',
  consent: ['analytics'],
  config: { measurement_id: 'G-TEST' },
};

export function ga4ClientId(event: StoredEvent): unknown {
  const prepared = ga4MpDriver.prepare(
    { ...event, event_data: event.event_data ?? {}, event_time: new Date(Date.now() - 60_000).toISOString() },
    { destination: GA4_DESTINATION, secrets: { api_secret: 's' }, now: new Date() },
  );
  assert.ok(prepared.ok, prepared.ok ? '' : prepared.reason);
  return (JSON.parse(prepared.request.body) as Record<string, unknown>)['client_id'];
}
