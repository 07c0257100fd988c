/**
 * The platforms' own event names a custom event can be sent as (the studio's creator offers
 * them; docs/linkage.md). From each platform's list of standard events: Meta's "Standard events"
 * of the Conversions API and pixel, GA4's recommended events, TikTok's "Supported standard
 * events" (Ads Manager help). Lead-like events first: the creator's usual case is a form or a
 * lead export.
 */
import type { Destination } from '../../schemas/settings.ts';

type PlatformType = Exclude<Destination['type'], 'webhook'>;

export const STANDARD_EVENTS: Readonly<Record<PlatformType, readonly string[]>> = Object.freeze({
  meta_capi: [
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
  ga4_mp: [
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
  tiktok_events: [
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
});

/** Where each platform's request carries an event's value and currency. */
export const VALUE_TARGETS: Readonly<Record<PlatformType, { value: string; currency: string }>> =
  Object.freeze({
    meta_capi: { value: 'custom_data.value', currency: 'custom_data.currency' },
    ga4_mp: { value: 'params.value', currency: 'params.currency' },
    tiktok_events: { value: 'properties.value', currency: 'properties.currency' },
  });

export const PLATFORM_TYPES = Object.keys(STANDARD_EVENTS) as PlatformType[];
export type { PlatformType };
