/**
 * What the scheduler's tests on the delivery stack share: a webhook that answers 503 for events
 * whose id starts with `down-` until it is told it is back, and the event they send.
 */

/** A receiver's answer that fails `down-…` events while `state.down`; a fresh one per test file. */
export function outage(): {
  readonly state: { down: boolean };
  readonly respond: (r: { eventId?: string }) => number;
} {
  const state = { down: true };
  return {
    state,
    respond: (r) => ((r.eventId ?? '').startsWith('down-') && state.down ? 503 : 200),
  };
}

/** A `view_content` event every destination may receive (consent granted). */
export const viewContent = (id: string) => ({
  event_name: 'view_content',
  event_id: id,
  content_name: 'Shoe',
  content_type: 'product',
  consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
});
