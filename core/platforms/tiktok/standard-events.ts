/**
 * TikTok's "Supported standard events" (Ads Manager help), which a custom event can be sent as
 * (the studio's creator offers them; docs/linkage.md, docs/platforms.md §3), lead-like events
 * first: the creator's usual case is a form or a lead export; and where the platform's event
 * carries a value and its currency. Data only, importing nothing: the creator's browser bundle
 * reads it (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const TIKTOK_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'SubmitForm',
    'Lead',
    'Contact',
    'CompleteRegistration',
    'SubmitApplication',
    'ApplicationApproval',
    'Schedule',
    'Subscribe',
    'StartTrial',
    'Purchase',
    'PlaceAnOrder',
    'InitiateCheckout',
    'AddToCart',
    'AddPaymentInfo',
    'AddToWishlist',
    'ViewContent',
    'Search',
    'Download',
    'FindLocation',
    'CustomizeProduct',
  ],
  // What the platform says matters most for matching (docs/platforms.md).
  matchGuidance:
    'TikTok: ttclid and email or phone weigh most, then external_id, ttp, and ip with user_agent.',
  valueTargets: { value: 'properties.value', currency: 'properties.currency' },
};
