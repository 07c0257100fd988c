/**
 * Rows for the reconciliation views' tests (core/warehouse/reconciliation.ts): a day's stored
 * event number i (`e<i>`, at 10:0i, digest `d<i>`) and its ledger row for a destination.
 */

/** A Meta destination (it reports counts) and a webhook (it reports none), for testSettings. */
export const RECONCILIATION_DESTINATIONS = [
  { id: 'meta', type: 'meta_capi', config: { pixel_id: '123' }, secrets: { access_token: 't' } },
  { id: 'hook', type: 'webhook', config: { url: 'https://hooks.example/x' } },
] as const;

/** Stored event `e<i>` of `day` (i below 10), as the store function writes it. */
export function dayEvent(day: string, i: number): Record<string, unknown> {
  return {
    event_id: `e${i}`,
    event_name: 'purchase',
    event_time: `${day}T10:0${i}:00Z`,
    received_at: `${day}T10:0${i}:01Z`,
    stored_at: `${day}T10:0${i}:02Z`,
    topic: 'events',
    message_id: `m${i}`,
    schema_version: 1,
    payload_digest: `d${i}`,
  };
}

/** A ledger row of event `e<i>` of `day` for `destination`, recorded ten minutes after it. */
export function dayLedgerRow(
  day: string,
  i: number,
  destination: string,
  status: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    event_id: `e${i}`,
    event_name: 'purchase',
    destination,
    status,
    replay: false,
    recorded_at: `${day}T10:1${i}:00Z`,
    payload_digest: `d${i}`,
    ...extra,
  };
}
