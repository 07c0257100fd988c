/**
 * The enrichment step of `store` (docs/enrichment.md): what is derived from a valid event after
 * validation and before the PII policy, stored in the `enriched` column and carried with the
 * event to the decision layer, mappings, replays and the preview. Pure and deterministic: the
 * data it needs (the referrer list, a geography lookup) is loaded by adapters/enrichment.ts
 * and passed in, and the event's identity (payload_digest) is computed before it runs.
 */
import type { Enriched } from '../../schemas/context.ts';
import type { Settings } from '../../schemas/settings.ts';
import type { StoredEvent } from '../event.ts';
import { attribution } from './attribution.ts';
import { withClientHints } from './client-hints.ts';
import { userAgentFacts } from './device.ts';
import type { ReferrerTable } from './referrers.ts';

export { fbcFrom } from './attribution.ts';
export { type ReferrerList, type ReferrerTable, referrerTable } from './referrers.ts';

/** Country of an IP address (ISO 3166-1 alpha-2), or undefined when unknown or not an address. */
export type GeoLookup = (ip: string) => string | undefined;

/** What an enricher may use besides the settings, loaded once by the caller. */
export interface EnrichData {
  /** The referrer list; without it every referral from another site is `referral`. */
  readonly referrers?: ReferrerTable;
  /** Needed when settings.enrichment.geo is `country`. */
  readonly geo?: GeoLookup;
}

/** Derives an event's enrichment; undefined when nothing was derived. */
export type Enricher = (event: StoredEvent) => Enriched | undefined;

const EMPTY_TABLE: ReferrerTable = { byHost: new Map() };

/**
 * The enricher the settings ask for (each enrichment has its switch, docs/enrichment.md), or
 * undefined when every switch is off. Geography needs `data.geo`; asked for without it, it is a
 * configuration error, thrown at cold start rather than silently leaving the column empty.
 */
export function createEnricher(settings: Readonly<Settings>, data: EnrichData = {}): Enricher | undefined {
  const s = settings.enrichment ?? {};
  const withAttribution = s.attribution !== false;
  const withDevice = s.device !== false;
  const withBots = s.bots !== false;
  const geo = s.geo === 'country' ? data.geo : undefined;
  if (s.geo === 'country' && geo === undefined)
    throw new Error('settings.enrichment.geo is country but no geography database was loaded');
  if (!withAttribution && !withDevice && !withBots && geo === undefined) return undefined;
  const attributionOptions = {
    referrers: data.referrers ?? EMPTY_TABLE,
    internalHosts: (s.internal_hosts ?? []).map((h) => h.toLowerCase()),
  };
  return (event) => {
    const out: { -readonly [K in keyof Enriched]: Enriched[K] } = {};
    if (withAttribution) Object.assign(out, attribution(event, attributionOptions));
    const ua = event.device?.user_agent;
    if (ua && (withDevice || withBots)) {
      const facts = userAgentFacts(ua);
      if (withDevice && facts.device) out.device = facts.device;
      if (withBots) out.bot = facts.bot;
    }
    const hints = event.device?.client_hints;
    if (hints && withDevice) {
      const device = withClientHints(out.device, hints);
      if (device) out.device = device;
    }
    const ip = event.device?.ip;
    if (geo && ip) {
      const country = geo(ip);
      if (country) out.geo = { country };
    }
    return Object.keys(out).length > 0 ? out : undefined;
  };
}

/** The event with its enrichment (the same object when there is none). */
export function withEnrichment(event: StoredEvent, enricher: Enricher | undefined): StoredEvent {
  const enriched = enricher?.(event);
  return enriched ? { ...event, enriched } : event;
}
