/**
 * plan().claims: which store keeps the send-once claims (`claims.store`, #97) and, for Cloud
 * Bigtable (adapters/bigtable-claims.ts; docs/delivery.md, "Claims in Bigtable"), the instance,
 * its cluster, the table, its one column family and that family's GC rule. The family and its
 * max age are defined here, in core, so that the plan, the Pulumi program (infra/claims-bigtable.ts)
 * and the adapter share one constant each (core imports nothing above it).
 */
import type { ClaimStoreKind, ClaimsSettings } from '../../schemas/settings-claims.ts';
import type { FieldViolation } from '../validation.ts';
import { SEND_ONCE_DAYS } from './send-once.ts';

/** The claims' one table. */
export const CLAIM_TABLE = 'claims';
/** The claims' one column family. */
export const CLAIM_FAMILY = 'c';
/** The family's GC rule (max age): a claim's window and a day more. */
export const CLAIM_MAX_AGE_SECONDS = (SEND_ONCE_DAYS + 1) * 86_400;

/** Bigtable's rule for an instance id (6–33) and a cluster id (6–30): lower case, digits, hyphens. */
const BIGTABLE_ID = /^[a-z][a-z0-9-]*[a-z0-9]$/;
export const INSTANCE_ID_MAX = 33;
export const CLUSTER_ID_MAX = 30;

/** True when `id` is a valid Bigtable id of at most `max` characters. */
export function isBigtableId(id: string, max: number): boolean {
  return id.length >= 6 && id.length <= max && BIGTABLE_ID.test(id);
}

/** A short, stable digest (FNV-1a, base 36, 7 characters) that keeps a shortened id unique. */
function digest7(text: string): string {
  let h = 0x811c9dc5;
  for (const ch of text) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return h.toString(36).padStart(7, '0');
}

/**
 * The claims instance's id for an environment: `<environment>-claims`, underscores as hyphens
 * (an environment's name starts with a lowercase letter, so `a` gives `a-claims`, 8 characters);
 * a name too long for 33 is cut, and a digest of the whole keeps it unique.
 */
export function bigtableInstanceId(environment: string): string {
  const base = environment.replaceAll('_', '-');
  const full = `${base}-claims`.replace(/-+/g, '-');
  if (full.length <= INSTANCE_ID_MAX) return full;
  const d = digest7(full);
  const head = base.slice(0, INSTANCE_ID_MAX - '-claims'.length - d.length - 1);
  return `${head}-${d}-claims`.replace(/-+/g, '-');
}

/** The zone a region's zonal resources take by default: its `-b` zone. */
export const defaultZone = (region: string): string => `${region}-b`;

export interface BigtableClaimsPlan {
  readonly instance: string;
  /** The instance's one cluster: named by its zone (a zone id is 6–30 characters of the id rule). */
  readonly cluster: string;
  readonly zone: string;
  readonly nodes: number;
  readonly storage: 'SSD' | 'HDD';
  readonly table: string;
  readonly family: string;
  /** The family's GC rule: cells older than this are dropped (`<n>s`, as Bigtable's duration). */
  readonly maxAgeSeconds: number;
}

/**
 * The send-once claims (core/claims/claim-store.ts): the Firestore database, declared whatever
 * the store (claims taken before a switch stay readable only there), and the Bigtable instance
 * when the settings choose it.
 */
export interface ClaimsPlan {
  /** The store the functions take claims in. */
  readonly store: ClaimStoreKind;
  /** The Firestore database id (claimsDatabaseId, core/plan.ts). */
  readonly database: string;
  /** Its location: the settings' region (a regional database: the cheaper write price). */
  readonly location: string;
  /** The Bigtable instance and table, when `store` is `bigtable`. */
  readonly bigtable?: BigtableClaimsPlan;
}

/** The Bigtable half of plan().claims: absent unless `claims.store` is `bigtable`. */
export function bigtableClaimsPlan(
  environment: string,
  region: string,
  claims: ClaimsSettings | undefined,
): BigtableClaimsPlan | undefined {
  if (claimStoreOf(claims) !== 'bigtable') return undefined;
  const zone = claims?.bigtable?.zone ?? defaultZone(region);
  return {
    instance: bigtableInstanceId(environment),
    cluster: zone,
    zone,
    nodes: claims?.bigtable?.nodes ?? 1,
    storage: claims?.bigtable?.storage ?? 'SSD',
    table: CLAIM_TABLE,
    family: CLAIM_FAMILY,
    maxAgeSeconds: CLAIM_MAX_AGE_SECONDS,
  };
}

/** plan().claims for settings whose Firestore claims database is `database`. */
export function claimsPlan(
  settings: { readonly name: string; readonly region: string; readonly claims?: ClaimsSettings },
  database: string,
): ClaimsPlan {
  const bigtable = bigtableClaimsPlan(settings.name, settings.region, settings.claims);
  return {
    store: claimStoreOf(settings.claims),
    database,
    location: settings.region,
    ...(bigtable ? { bigtable } : {}),
  };
}

/** The store the settings choose: Firestore unless `claims.store` says otherwise. */
export const claimStoreOf = (claims: ClaimsSettings | undefined): ClaimStoreKind =>
  claims?.store ?? 'firestore';

/** What the settings check refuses about `claims` beyond the schema: a zone outside the region, a `bigtable` block with nothing to configure. */
export function claimsSettingsErrors(settings: {
  readonly region: string;
  readonly claims?: ClaimsSettings;
}): FieldViolation[] {
  const c = settings.claims;
  if (!c?.bigtable) return [];
  const errors: FieldViolation[] = [];
  if (claimStoreOf(c) !== 'bigtable')
    errors.push({
      field: 'claims.bigtable',
      description: 'only means something with claims.store: bigtable',
    });
  const zone = c.bigtable.zone;
  if (zone !== undefined && !zone.startsWith(`${settings.region}-`))
    errors.push({
      field: 'claims.bigtable.zone',
      description: `must be a zone of the region ${settings.region} (like ${defaultZone(settings.region)}): the claims stay with the functions that take them`,
    });
  return errors;
}
