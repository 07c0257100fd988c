/**
 * Attribution from the page (docs/enrichment.md, "Attribution"): the UTM fields and every major
 * platform's click id read from `page.url`, the referrer's host and name from `page.referrer`, a
 * channel, and Meta's `fbc` built from `fbclid`. The producer's own `campaign.*` always wins.
 */

import type { Channel, Enriched } from '../../schemas/context.ts';
import type { StoredEvent } from '../event.ts';
import { CLICK_IDS } from '../platforms/facts.ts';
import { UTM } from './click-ids.ts';
import { lookupReferrer, type ReferrerTable } from './referrers.ts';

type EnrichedCampaign = NonNullable<Enriched['campaign']>;
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** The UTM fields (click-ids.ts): taken from the producer as a group, or else from the URL as a group. */
type UtmField = (typeof UTM)[keyof typeof UTM];

/**
 * Click ids: URL parameter (lower-cased: Snapchat writes `ScCid`) → campaign field of the same
 * name, each platform's (core/platforms/<platform>/facts.ts). Each is taken from the producer when
 * it sent one, else from the URL, one by one (one click per platform).
 */
type ClickId = keyof EnrichedCampaign & string;
const CLICK_FIELDS = CLICK_IDS.map((c) => c.param as ClickId);

const PARAMS: ReadonlyMap<string, UtmField | ClickId> = new Map<string, UtmField | ClickId>([
  ...Object.entries(UTM),
  ...CLICK_FIELDS.map((id) => [id, id] as const),
]);

/** Search platforms' click ids mean a paid search click; the rest are social platforms' ads. */
const clicksOf = (channel: Channel): readonly ClickId[] =>
  CLICK_IDS.filter((c) => c.channel === channel).map((c) => c.param as ClickId);
const SEARCH_CLICKS = clicksOf('paid_search');
const SOCIAL_CLICKS = clicksOf('social');

/** utm_medium values and the channel they name (lower-cased; GA4's default channel rules in spirit). */
const MEDIUM_CHANNEL: ReadonlyMap<string, Channel> = new Map<string, Channel>([
  ['cpc', 'paid_search'],
  ['ppc', 'paid_search'],
  ['paidsearch', 'paid_search'],
  ['paid_search', 'paid_search'],
  ['paid-search', 'paid_search'],
  ['sem', 'paid_search'],
  ['organic', 'organic_search'],
  ['email', 'email'],
  ['e-mail', 'email'],
  ['e_mail', 'email'],
  ['newsletter', 'email'],
  ['social', 'social'],
  ['social-network', 'social'],
  ['social-media', 'social'],
  ['social_media', 'social'],
  ['sm', 'social'],
  ['paid_social', 'social'],
  ['paid-social', 'social'],
  ['paidsocial', 'social'],
  ['display', 'display'],
  ['banner', 'display'],
  ['cpm', 'display'],
  ['referral', 'referral'],
]);

/** Ghost's media → channels (`paid` are ad servers: display). */
const LIST_CHANNEL: Readonly<Record<string, Channel>> = {
  search: 'organic_search',
  social: 'social',
  email: 'email',
  paid: 'display',
};

export interface AttributionOptions {
  readonly referrers: ReferrerTable;
  /** Hosts whose referrals are internal besides the page's own (lower-case). */
  readonly internalHosts: readonly string[];
}

export interface Attribution {
  readonly campaign?: EnrichedCampaign;
  /** Absent for an event with no page, referrer or campaign (a backend's): it was no visit. */
  readonly channel?: Channel;
  readonly referrer_host?: string;
  readonly referrer_source?: string;
}

/** A URL, or undefined when the text is not an absolute URL (producers send anything). */
function parseUrl(text: string | undefined): URL | undefined {
  if (text === undefined || text === '') return undefined;
  return URL.parse(text) ?? undefined; // one parse (canParse and then new URL parsed twice)
}

/** The UTM fields and click ids of a landing URL: the first value of each, empty ones skipped. */
function urlCampaign(url: URL | undefined): Partial<Record<UtmField | ClickId, string>> {
  const found: Partial<Record<UtmField | ClickId, string>> = {};
  if (url === undefined || url.search.length < 2) return found;
  for (const [key, value] of url.searchParams) {
    const field = PARAMS.get(key.toLowerCase());
    if (field !== undefined && value !== '' && found[field] === undefined) found[field] = value.slice(0, 512);
  }
  return found;
}

/** Meta's click-id cookie format (docs/platforms.md): `fb.1.<click time, ms>.<fbclid>`. */
export function fbcFrom(fbclid: string, eventTime: string): string | undefined {
  const ms = Date.parse(eventTime);
  return Number.isNaN(ms) ? undefined : `fb.1.${ms}.${fbclid}`;
}

/** The attribution of one event (pure: the same event always gives the same result). */
export function attribution(event: StoredEvent, options: AttributionOptions): Attribution {
  const produced = event.campaign ?? {};
  const pageUrl = parseUrl(event.page?.url);
  const fromUrl = urlCampaign(pageUrl);
  const campaign: Writable<EnrichedCampaign> = {};
  const producerUtm = Object.values(UTM).some((f) => produced[f] !== undefined);
  for (const f of Object.values(UTM)) {
    const v = producerUtm ? produced[f] : fromUrl[f];
    if (v !== undefined) campaign[f] = v;
  }
  for (const f of CLICK_FIELDS) {
    const v = produced[f] ?? fromUrl[f];
    if (v !== undefined) campaign[f] = v;
  }
  const fbc = produced['fbc'] ?? (campaign.fbclid ? fbcFrom(campaign.fbclid, event.event_time) : undefined);
  if (fbc !== undefined) campaign.fbc = fbc;

  const referrer = parseUrl(event.page?.referrer);
  const referrerHost = referrer?.hostname.toLowerCase() || undefined;
  const entry =
    referrer && referrerHost ? lookupReferrer(options.referrers, referrerHost, referrer.pathname) : undefined;
  const visit = pageUrl !== undefined || referrer !== undefined || Object.keys(campaign).length > 0;
  const channel = visit
    ? classify(campaign, referrerHost, entry?.medium, pageUrl?.hostname.toLowerCase(), options)
    : undefined;
  return {
    ...(Object.keys(campaign).length > 0 ? { campaign } : {}),
    ...(channel ? { channel } : {}),
    ...(referrerHost ? { referrer_host: referrerHost } : {}),
    ...(entry ? { referrer_source: entry.source } : {}),
  };
}

const sameSite = (host: string, site: string) => host === site || host.endsWith(`.${site}`);
const bare = (host: string) => (host.startsWith('www.') ? host.slice(4) : host);

/**
 * The channel, first rule that applies: the campaign's medium, a click id (search platforms:
 * paid search; the others: social), no referrer (direct, or referral when the URL names a source),
 * the site itself or a listed internal host (internal), the referrer list, else referral.
 */
function classify(
  campaign: EnrichedCampaign,
  referrerHost: string | undefined,
  listMedium: string | undefined,
  pageHost: string | undefined,
  options: AttributionOptions,
): Channel {
  const medium = campaign.medium?.trim().toLowerCase();
  const byMedium = medium === undefined ? undefined : MEDIUM_CHANNEL.get(medium);
  if (byMedium) return byMedium;
  if (SEARCH_CLICKS.some((c) => campaign[c] !== undefined)) return 'paid_search';
  if (SOCIAL_CLICKS.some((c) => campaign[c] !== undefined)) return 'social';
  if (referrerHost === undefined) return campaign.source !== undefined ? 'referral' : 'direct';
  if (
    (pageHost !== undefined && bare(referrerHost) === bare(pageHost)) ||
    options.internalHosts.some((h) => sameSite(referrerHost, h))
  ) {
    return 'internal';
  }
  return (listMedium && LIST_CHANNEL[listMedium]) || 'referral';
}
