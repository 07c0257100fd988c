/**
 * Meta's "Standard events" (Conversions API and pixel), which a custom event can be sent as (the
 * studio's creator offers them; docs/linkage.md, docs/platforms.md §1), lead-like events first:
 * the creator's usual case is a form or a lead export; and where the platform's event carries a
 * value and its currency. Data only, importing nothing: the creator's browser bundle reads it
 * (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const META_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'Lead',
    'CompleteRegistration',
    'Contact',
    'SubmitApplication',
    'Schedule',
    'Subscribe',
    'StartTrial',
    'Purchase',
    'InitiateCheckout',
    'AddToCart',
    'AddPaymentInfo',
    'AddToWishlist',
    'ViewContent',
    'Search',
    'FindLocation',
    'CustomizeProduct',
    'Donate',
  ],
  // What the platform says matters most for matching (docs/platforms.md).
  matchGuidance:
    'Meta: email and phone weigh most, then external_id, fbc and fbp, and ip with user_agent (Event Match Quality).',
  valueTargets: { value: 'custom_data.value', currency: 'custom_data.currency' },
  actionSourceTarget: 'action_source',
};
