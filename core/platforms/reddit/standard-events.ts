/**
 * Reddit's conversion event types (Conversions API v3, `type.tracking_type`), which a custom
 * event can be sent as, lead-like first; `CUSTOM` sends the mapped name as `custom_event_name`
 * (docs/platforms.md, Reddit). Data only, importing nothing: the creator's browser bundle reads
 * it (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const REDDIT_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'LEAD',
    'SIGN_UP',
    'PURCHASE',
    'ADD_TO_CART',
    'ADD_TO_WISHLIST',
    'VIEW_CONTENT',
    'SEARCH',
    'PAGE_VISIT',
  ],
  valueTargets: { value: 'metadata.value', currency: 'metadata.currency' },
  actionSourceTarget: 'action_source',
};
