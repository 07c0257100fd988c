/**
 * Snapchat's standard events of the Conversions API v3 (docs/platforms.md, "Snapchat"), which a custom
 * event can be sent as (the studio's creator offers them), the sign-up and custom slots first:
 * Snap names no lead event, so a lead goes to a custom slot. And where its event carries a value
 * and its currency. Data only, importing nothing: the creator's browser bundle reads it
 * (core/platforms/standard-events.ts).
 */
import type { StandardEvents } from '../platform.ts';

export const SNAPCHAT_STANDARD_EVENTS: StandardEvents = {
  standardEvents: [
    'SIGN_UP',
    'CUSTOM_EVENT_1',
    'CUSTOM_EVENT_2',
    'CUSTOM_EVENT_3',
    'CUSTOM_EVENT_4',
    'CUSTOM_EVENT_5',
    'SUBSCRIBE',
    'START_TRIAL',
    'RESERVE',
    'PURCHASE',
    'START_CHECKOUT',
    'ADD_CART',
    'ADD_BILLING',
    'ADD_TO_WISHLIST',
    'PAGE_VIEW',
    'VIEW_CONTENT',
    'LIST_VIEW',
    'SEARCH',
    'SAVE',
    'SHARE',
    'LOGIN',
    'INVITE',
    'RATE',
    'AD_CLICK',
    'AD_VIEW',
    'COMPLETE_TUTORIAL',
    'LEVEL_COMPLETE',
    'ACHIEVEMENT_UNLOCKED',
    'SPEND_CREDITS',
  ],
  valueTargets: { value: 'custom_data.value', currency: 'custom_data.currency' },
  actionSourceTarget: 'action_source',
};
