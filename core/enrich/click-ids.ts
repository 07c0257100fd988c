/**
 * The UTM parameters a landing's campaign comes from, shared by the enrichment step
 * (attribution.ts) and the first-party tag (gateway/tag/context.ts), which bundles them for
 * browsers: no imports here. The ad platforms' click ids are each platform's facts
 * (core/platforms/facts.ts `CLICK_IDS`): the tag is bundled with their names.
 */
/** The UTM parameters and the `campaign` field each fills. */
export const UTM = {
  utm_source: 'source',
  utm_medium: 'medium',
  utm_campaign: 'name',
  utm_term: 'term',
  utm_content: 'content',
} as const;
