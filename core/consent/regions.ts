/**
 * Consent Mode's region defaults (`gtag('consent', 'default', {..., region: [...]})`), resolved
 * where the visitor is (docs/delivery.md, "Consent Mode region defaults"). The page cannot know
 * its visitor's region, so the tag sends these defaults as given (`consent.region_defaults`, only
 * the states no later update or `analytics.consent()` call replaced) and this, called by the one
 * resolver (resolve.ts), applies them. The visitor's region is the country the store's geography
 * enrichment found for the request's address (`enriched.geo.country`, with `enrichment.geo:
 * country`); nothing else is trusted for it.
 *
 * As in gtag, the most specific default that matches wins over the default without a region: a
 * country's (`ES`) over none. Two choices where gtag knows more than the server:
 * - a subdivision's default (`US-CA`) cannot be matched from a country: where the visitor is in
 *   that country and the subdivision's default denies, the purpose is denied (fail closed);
 * - where the visitor's region is unknown (no geography enrichment, or an address it cannot
 *   place), any region's default that denies denies the purpose.
 * A region default that grants only ever grants where it matches.
 */
import type { RegionDefault } from '../../schemas/context.ts';
import type { ConsentPurpose } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';

/** A purpose as the region defaults state it for this visitor: its state and the ledger's words. */
export interface RegionalWord {
  readonly state: 'granted' | 'denied';
  readonly reason: string;
}

/** Consent Mode's name for each purpose. */
const MODE_NAME: Readonly<Record<ConsentPurpose, keyof Omit<RegionDefault, 'region'>>> = {
  analytics: 'analytics_storage',
  ads: 'ad_storage',
  ad_user_data: 'ad_user_data',
  ad_personalization: 'ad_personalization',
};

/** The region defaults' word on each purpose for this event's visitor; undefined without any. */
export function regionalWords(event: StoredEvent): Partial<Record<ConsentPurpose, RegionalWord>> | undefined {
  const defaults = event.consent?.['region_defaults'];
  if (!Array.isArray(defaults) || defaults.length === 0) return undefined;
  const country = event.enriched?.geo?.country?.toUpperCase();
  const out: Partial<Record<ConsentPurpose, RegionalWord>> = {};
  for (const purpose of Object.keys(MODE_NAME) as ConsentPurpose[]) {
    const word = regionalWord(defaults, MODE_NAME[purpose], country);
    if (word !== undefined) out[purpose] = word;
  }
  return out;
}

/** Whether a region is a subdivision of the country (`US-CA` of `US`). */
const inCountry = (region: string, country: string): boolean =>
  region.length > 3 && region.slice(0, 2).toUpperCase() === country;

function regionalWord(
  defaults: readonly RegionDefault[],
  name: keyof Omit<RegionDefault, 'region'>,
  country: string | undefined,
): RegionalWord | undefined {
  let matched: { state: 'granted' | 'denied'; region: string } | undefined;
  let possibleDenial: string | undefined;
  for (const entry of defaults) {
    const state = entry[name];
    if (state === undefined) continue;
    for (const region of entry.region) {
      // The last default given for the visitor's country wins, as a later command would.
      if (country !== undefined && region.length === 2 && region.toUpperCase() === country)
        matched = { state, region: country };
      else if (state === 'denied' && (country === undefined || inCountry(region, country)))
        possibleDenial ??= region.toUpperCase();
    }
  }
  const words = (state: string, region: string, why = '') =>
    `consent ${name} ${state} (Consent Mode default for region ${region}${why})`;
  if (possibleDenial !== undefined && matched?.state !== 'denied') {
    const why =
      country === undefined ? "; the visitor's region is unknown" : `; the visitor is in ${country}`;
    return { state: 'denied', reason: words('denied', possibleDenial, why) };
  }
  return matched && { state: matched.state, reason: words(matched.state, matched.region) };
}
