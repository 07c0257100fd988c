/**
 * Microsoft Advertising UET: an event is a page load (`pageLoad`) or a custom event whose free
 * `eventName` the advertiser's conversion goals match (docs/platforms.md, Microsoft). The names
 * offered are UET's recommended ones (GA4's spelling, which the UET tag also uses), lead-like
 * first; `pageLoad` sends a page load. Data only, importing nothing: the creator's browser bundle
 * reads it (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const MICROSOFT_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'generate_lead',
    'sign_up',
    'contact',
    'subscribe',
    'purchase',
    'begin_checkout',
    'add_to_cart',
    'add_payment_info',
    'view_item',
    'search',
    'pageLoad',
  ],
  valueTargets: { value: 'customData.eventValue', currency: 'customData.currency' },
};
