/**
 * The URL parameters a landing's campaign comes from, shared by the enrichment step
 * (attribution.ts) and the first-party tag (gateway/tag/context.ts), which bundles them for
 * browsers: no imports here. The ad platforms' click ids fill the `campaign` field of their own
 * name (parameters lower-cased: Snapchat writes `ScCid`); UTM parameters fill theirs.
 */
export const CLICK_IDS = [
  'gclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'ttclid',
  'msclkid',
  'sccid',
  'epik',
  'li_fat_id',
  'rdt_cid',
  'twclid',
] as const;

/** The UTM parameters and the `campaign` field each fills. */
export const UTM = {
  utm_source: 'source',
  utm_medium: 'medium',
  utm_campaign: 'name',
  utm_term: 'term',
  utm_content: 'content',
} as const;
