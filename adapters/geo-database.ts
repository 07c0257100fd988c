/**
 * The country database `store` looks addresses up in (docs/enrichment.md, "Updates"): the one
 * bundled with the package, replaced by a newer one uploaded to the registry bucket
 * (`eventbus geo update`, object `geo/country.mmdb`) without a deploy.
 *
 * Like the registry's readers (adapters/registry.ts) the refresh is started by lookups, not by a
 * timer (Cloud Run throttles CPU between requests), and never makes one wait: a lookup finding the
 * last check older than five minutes starts one in the background and is answered from the
 * database held. The check reads the object's metadata; only a new generation is downloaded,
 * opened and checked (it must answer a country lookup) before it replaces the one held, in one
 * assignment. A missing object keeps the bundled database; a failed read or a database that does
 * not open keeps the one held, and is logged. The bytes are read as untrusted input, under the
 * bounds of adapters/mmdb-reader.ts: a crafted file is refused at open, never a stalled lookup.
 */
import type { GeoLookup } from '../core/enrich/index.ts';
import { type MmdbReader, openMmdb } from './mmdb-reader.ts';

/** The object `eventbus geo update` writes and `store` reads, in the registry bucket. */
export const GEO_OBJECT = 'geo/country.mmdb';

/**
 * Public addresses a country database must place (the regional registries' own web servers,
 * IPv4 and IPv6, whose countries test/unit/enrich/geo.test.ts checks on DB-IP's database): a file
 * that places none of them is not a usable country database.
 */
const PROBES = ['193.0.6.139', '203.119.101.61', '192.0.32.8', '200.3.14.10', '2001:67c:2e8:22::c100:68b'];

/** The country of a record: ip-location-db's `{country_code}` or MaxMind's `{country: {iso_code}}`. */
function countryOf(record: unknown): string | undefined {
  if (record === null || typeof record !== 'object') return undefined;
  const r = record as { country_code?: unknown; country?: { iso_code?: unknown } };
  const code = typeof r.country_code === 'string' ? r.country_code : r.country?.iso_code;
  return typeof code === 'string' && /^[A-Z]{2}$/.test(code) ? code : undefined;
}

/**
 * A country lookup over an opened reader: an address it refuses (not an IP), does not know, or
 * whose record is past the reader's bounds gives undefined.
 */
export function readerLookup(reader: MmdbReader): GeoLookup {
  return (ip) => {
    try {
      return countryOf(reader.get(ip));
    } catch {
      return undefined;
    }
  };
}

/** An opened database, or why the bytes are not one. */
export type OpenedDatabase =
  | { readonly ok: true; readonly lookup: GeoLookup; readonly probe: { ip: string; country: string } }
  | { readonly ok: false; readonly reason: string };

/**
 * Opens MMDB bytes as a country lookup and checks that they answer one: the bounded reader must
 * accept the file (adapters/mmdb-reader.ts), and at least one well-known public address must get
 * an ISO 3166-1 alpha-2 country.
 */
export function openCountryDatabase(bytes: Buffer): OpenedDatabase {
  const opened = openMmdb(bytes);
  if (!opened.ok) return { ok: false, reason: `not an MMDB database: ${opened.reason}` };
  const lookup = readerLookup(opened.reader);
  for (const ip of PROBES) {
    const country = lookup(ip);
    if (country) return { ok: true, lookup, probe: { ip, country } };
  }
  return {
    ok: false,
    reason: `it opens but places none of ${PROBES.join(', ')} in a country (country_code or country.iso_code)`,
  };
}

/** The part of a Cloud Storage object the refresh uses (a `File` of @google-cloud/storage). */
export interface GeoObject {
  getMetadata(): Promise<[{ generation?: string | number }, ...unknown[]]>;
  download(): Promise<[Buffer, ...unknown[]]>;
}

export interface GeoDatabaseOptions {
  /** The object at a generation (a `bucket.file(GEO_OBJECT, {generation})`), loaded when first needed. */
  readonly object: (generation?: number) => GeoObject | Promise<GeoObject>;
  /** How old the last check may be before a lookup starts another. Default 5 minutes. */
  readonly maxAgeMs?: number;
  readonly clock?: () => number;
  readonly log?: (message: string) => void;
}

const statusOf = (err: unknown): unknown => (err as { code?: unknown }).code;

/** The bundled database, swapped for the registry bucket's when a newer generation appears. */
export class GeoDatabase {
  private current: GeoLookup;
  /** The generation held; 0 while the bundled database is. */
  generation = 0;
  /** A generation that did not open: not downloaded again. */
  private refused = -1;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | undefined;
  private readonly opts: GeoDatabaseOptions;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;

  constructor(bundled: GeoLookup, opts: GeoDatabaseOptions) {
    this.current = bundled;
    this.opts = opts;
    this.maxAgeMs = opts.maxAgeMs ?? 300_000;
    this.clock = opts.clock ?? Date.now;
  }

  /** The lookup enrichment calls: the database held now; an old check starts a new one. */
  readonly lookup: GeoLookup = (ip) => {
    if (this.checking === undefined && this.clock() - this.checkedAt >= this.maxAgeMs) void this.check();
    return this.current(ip);
  };

  /** One check of the object (the one under way, if any); never rejects. */
  check(): Promise<void> {
    this.checking ??= this.read()
      .catch((err: unknown) => this.opts.log?.(`geo database: kept the one held: ${(err as Error).message}`))
      .finally(() => {
        this.checkedAt = this.clock();
        this.checking = undefined;
      });
    return this.checking;
  }

  private async read(): Promise<void> {
    const meta = await Promise.resolve(this.opts.object())
      .then((o) => o.getMetadata())
      .then(([m]) => m)
      .catch((err: unknown) => (statusOf(err) === 404 ? undefined : Promise.reject(err)));
    const generation = Number(meta?.generation ?? 0);
    if (meta === undefined || generation === this.generation || generation === this.refused) return;
    const [bytes] = await (await this.opts.object(generation)).download();
    const opened = openCountryDatabase(bytes);
    if (!opened.ok) this.refused = generation;
    if (!opened.ok) throw new Error(`${GEO_OBJECT} generation ${generation} is refused: ${opened.reason}`);
    this.current = opened.lookup;
    this.generation = generation;
    this.opts.log?.(`geo database: now ${GEO_OBJECT} generation ${generation} (${bytes.length} bytes)`);
  }
}
