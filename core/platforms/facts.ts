/**
 * The platforms' facts (core/platforms/platform.ts, `PlatformFacts`), one line per destination
 * type, each the data-only `facts.ts` its folder writes. The studio's browser bundle, the gateway's
 * cookies and enrichment's click ids read this list instead of platforms.ts, which would pull
 * every driver in (the webhook's `node:crypto` signing cannot be bundled for a browser); each
 * platform's value spreads the same object, and test/unit/platforms/folders.test.ts checks both
 * lists agree. The type checker refuses a settings type missing here.
 */
import type { DestinationType } from '../../schemas/settings.ts';
import { GA4_FACTS } from './ga4/facts.ts';
import { GOOGLE_ADS_FACTS } from './google-ads/facts.ts';
import { LINKEDIN_FACTS } from './linkedin/facts.ts';
import { META_FACTS } from './meta/facts.ts';
import { MICROSOFT_FACTS } from './microsoft/facts.ts';
import { PINTEREST_FACTS } from './pinterest/facts.ts';
import type { ClickIdFact, PageCookie, PlatformFacts } from './platform.ts';
import { REDDIT_FACTS } from './reddit/facts.ts';
import { SEGMENT_ACTION_FACTS } from './segment-action/facts.ts';
import { SNAPCHAT_FACTS } from './snapchat/facts.ts';
import { TIKTOK_FACTS } from './tiktok/facts.ts';
import { WEBHOOK_FACTS } from './webhook/facts.ts';
import { X_FACTS } from './x/facts.ts';

/** Every platform's facts by its destination type. */
export const PLATFORM_FACTS: Readonly<Record<DestinationType, PlatformFacts>> = Object.freeze({
  meta_capi: META_FACTS,
  ga4_mp: GA4_FACTS,
  tiktok_events: TIKTOK_FACTS,
  google_ads: GOOGLE_ADS_FACTS,
  pinterest_capi: PINTEREST_FACTS,
  snapchat_capi: SNAPCHAT_FACTS,
  x_conversions: X_FACTS,
  webhook: WEBHOOK_FACTS,
  linkedin_capi: LINKEDIN_FACTS,
  microsoft_uet: MICROSOFT_FACTS,
  reddit_capi: REDDIT_FACTS,
  segment_action: SEGMENT_ACTION_FACTS,
});

/** The facts in the list's order. */
export const FACTS_LIST: readonly PlatformFacts[] = Object.freeze(Object.values(PLATFORM_FACTS));

/** The platforms whose facts hold `slot`, in the list's order. */
export function factsWith<K extends keyof PlatformFacts>(
  slot: K,
): readonly (PlatformFacts & Required<Pick<PlatformFacts, K>>)[] {
  return FACTS_LIST.filter(
    (f): f is PlatformFacts & Required<Pick<PlatformFacts, K>> => f[slot] !== undefined,
  );
}

/**
 * Every platform's click ids (URL parameters, lower-cased), in the list's order: enrichment reads
 * them from a landing URL (core/enrich/attribution.ts) and the tag is bundled with their names
 * (gateway/tag-route.ts), each filling the `campaign` field of its name.
 */
export const CLICK_IDS: readonly ClickIdFact[] = Object.freeze(
  factsWith('clickIds').flatMap((f) => f.clickIds),
);

/** Every platform's cookies its pixel sets that the tag reads (gateway/tag-route.ts bundles them). */
export const PAGE_COOKIES: readonly PageCookie[] = Object.freeze(
  factsWith('pageCookies').flatMap((f) => f.pageCookies),
);
