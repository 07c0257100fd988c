/**
 * A category for each Segment Action Destination in the manifest (scripts/segment-catalog.ts).
 * The definitions carry none, so it is derived from the slug, name and description by the first
 * rule whose words appear there: coarse, for browsing and search in the studio, never a contract.
 */

/** The rules in order: the first that matches names the category. */
const RULES: readonly { readonly category: string; readonly words: RegExp }[] = [
  { category: 'Audiences', words: /audience|segment membership|custom audiences|-lists\b|static-lists/ },
  {
    category: 'Advertising',
    words:
      /conversion|capi|\bads?\b|advertis|campaign manager|dv360|display-video|trade desk|criteo|taboola|moloco|stackadapt|revx|rokt|podscribe|nextdoor|reddit|snap|pinterest|tiktok|linkedin|yahoo|kevel|iqm|magellan|liveramp|topsort/,
  },
  {
    category: 'Messaging',
    words:
      /e-?mail|sms|push notification|messag|sendgrid|twilio|klaviyo|braze|customer\.?io|iterable|airship|attentive|postscript|courier|loops|drip|emarsys|listrak|cordial|responsys|acoustic|moengage|clevertap|xtremepush|pushwoosh|insider|encharge|outfunnel|marketo|pardot|marketing cloud|slack/,
  },
  {
    category: 'CRM',
    words:
      /\bcrm\b|salesforce|hubspot|pipedrive|attio|close|apollo|intercom|gainsight|saleswings|blackbaud|hyperengage|koala|devrev|chartmogul|mantle|m3ter|metronome|canny|toplyne|antavo|talon|voucherify|friendbuy|gameball|yotpo|rehook/,
  },
  {
    category: 'Analytics',
    words:
      /analytic|amplitude|mixpanel|heap|fullstory|june|usermaven|usermotion|userpilot|avo|sprig|qualtrics|surveysparrow|trubrics|gleap|playerzero|aggregations|app-fit|calliper|equals|trackey|adjust|insights/,
  },
  {
    category: 'Experimentation',
    words:
      /experiment|feature flag|personali[sz]|optimizely|launchdarkly|kameleoon|vwo|absmartly|dynamic yield|adobe target|recombee|algolia|movable ink|blend|angler|1plusx|schematic/,
  },
  {
    category: 'Storage and streaming',
    words: /\bs3\b|kafka|eventbridge|singlestore|google sheets|webhook|kinesis|warehouse|aws|stream/,
  },
];

/**
 * The category of one destination: by its slug and name first (a vendor's name says most), then
 * Audiences for one that syncs audiences (Segment's `audienceFields`), then by its description;
 * `Other` when nothing matches.
 */
export function categoryOf(d: {
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  readonly audiences: boolean;
}): string {
  const named = `${d.slug} ${d.name}`.toLowerCase();
  const byName = RULES.find((r) => r.words.test(named))?.category;
  if (byName) return byName;
  if (d.audiences) return 'Audiences';
  return RULES.find((r) => r.words.test(d.description.toLowerCase()))?.category ?? 'Other';
}
