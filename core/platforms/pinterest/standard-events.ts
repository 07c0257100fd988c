/**
 * Pinterest's conversion event names as its API spells them (docs/platforms.md, "Pinterest"), which a
 * custom event can be sent as (the studio's creator offers them), lead-like events first; and
 * where its event carries a value and its currency. Pinterest refuses any other name: an event of
 * the advertiser's own goes as `custom`. Data only, importing nothing: the creator's browser bundle
 * reads it (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const PINTEREST_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'lead',
    'signup',
    'contact',
    'checkout',
    'add_to_cart',
    'add_payment_info',
    'add_to_wishlist',
    'page_visit',
    'view_category',
    'search',
    'watch_video',
    'app_install',
    'app_open',
    'custom',
  ],
  valueTargets: { value: 'custom_data.value', currency: 'custom_data.currency' },
  actionSourceTarget: 'action_source',
};
