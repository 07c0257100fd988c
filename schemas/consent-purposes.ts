/**
 * The consent purposes, written once (docs/delivery.md, "Consent"; docs/glossary.md, "consent
 * purpose"): the settings' `ConsentPurpose` (schemas/settings.ts), the consent resolver
 * (core/consent/resolve.ts) and the studio's creator (core/samples/draft.ts) read this list. Data
 * only, importing nothing: the studio's browser bundle loads it.
 */
export const CONSENT_PURPOSES = Object.freeze([
  'analytics',
  'ads',
  'ad_user_data',
  'ad_personalization',
] as const);

/** One consent purpose. */
export type ConsentPurposeName = (typeof CONSENT_PURPOSES)[number];
