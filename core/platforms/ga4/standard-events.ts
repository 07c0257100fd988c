/**
 * GA4's recommended events, which a custom event can be sent as (the studio's creator offers
 * them; docs/linkage.md, docs/platforms.md §2), lead-like events first: the creator's usual case
 * is a form or a lead export; and where the platform's event carries a value and its currency.
 * Data only, importing nothing: the creator's browser bundle reads it
 * (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const GA4_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'generate_lead',
    'qualify_lead',
    'working_lead',
    'close_convert_lead',
    'close_unconvert_lead',
    'disqualify_lead',
    'sign_up',
    'login',
    'purchase',
    'refund',
    'begin_checkout',
    'add_to_cart',
    'add_payment_info',
    'view_item',
    'search',
    'share',
  ],
  // What the platform says matters most for matching (docs/platforms.md).
  matchGuidance:
    'GA4: client_id (or app instance) is required; user_id and hashed email or phone improve joining.',
  valueTargets: { value: 'params.value', currency: 'params.currency' },
};
