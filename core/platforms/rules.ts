/**
 * Each destination type's rules, read from the platform's own folder (meta/, ga4/, tiktok/,
 * webhook/rules.ts): the settings check, plan(), the decision layer and the drivers share
 * these tables, so a platform's needs are written once.
 */
import type { ConsentPurpose, Destination } from '../../schemas/settings.ts';
import type { DestinationRequirements, PlatformRules } from './driver.ts';
import { GA4_RULES } from './ga4/rules.ts';
import { META_RULES } from './meta/rules.ts';
import { TIKTOK_RULES } from './tiktok/rules.ts';
import { WEBHOOK_RULES } from './webhook/rules.ts';

const RULES: Readonly<Record<Destination['type'], PlatformRules>> = Object.freeze({
  meta_capi: META_RULES,
  ga4_mp: GA4_RULES,
  tiktok_events: TIKTOK_RULES,
  webhook: WEBHOOK_RULES,
});

/** Per destination type: what its driver cannot work without. */
export const DESTINATION_REQUIREMENTS: Readonly<Record<Destination['type'], DestinationRequirements>> =
  Object.freeze({
    meta_capi: RULES.meta_capi.requirements,
    ga4_mp: RULES.ga4_mp.requirements,
    tiktok_events: RULES.tiktok_events.requirements,
    webhook: RULES.webhook.requirements,
  });

/** The consent purposes each destination type needs unless its settings say otherwise. */
export const DEFAULT_CONSENT: Readonly<Record<Destination['type'], readonly ConsentPurpose[]>> =
  Object.freeze({
    meta_capi: RULES.meta_capi.consent,
    ga4_mp: RULES.ga4_mp.consent,
    tiktok_events: RULES.tiktok_events.consent,
    webhook: RULES.webhook.consent,
  });
