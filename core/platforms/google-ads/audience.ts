/**
 * Customer Match through the Data Manager API (docs/platforms.md §6, "Customer Match"), the pure
 * part: each warehouse row a sync sends becomes an `AudienceMember` whose `userData` holds the
 * row's identifiers normalised and hashed as for conversions (Google's own rules, the same
 * transforms), members added with `POST /v1/audienceMembers:ingest` and — in mirror mode —
 * removed with `POST /v1/audienceMembers:remove`, at most 10,000 a request. A row's consent
 * columns (`ad_user_data`, `ad_personalization`: granted or denied) become the member's consent;
 * an upload says the Customer Match terms were accepted when the sync says so.
 * Generic over the change a sync carries, which it hands back untouched with each request. The
 * schedule function sends them for a `google_ads_audience` sync destination (docs/syncs.md).
 */
import * as t from '../../linkage/transforms.ts';
import type { AudienceChange } from '../platform.ts';
import { GOOGLE_ADS_BASE_URL } from './driver.ts';

/** Members per `audienceMembers` request (Data Manager's limit). */
export const CUSTOMER_MATCH_MAX_MEMBERS = 10_000;

/** The row columns a Customer Match sync may give. */
export const CUSTOMER_MATCH_COLUMNS: readonly string[] = Object.freeze([
  'email',
  'phone',
  'first_name',
  'last_name',
  'country',
  'postal_code',
]);

const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** One row's identifiers, each its own `UserIdentifier` (an address only with its four parts). */
export function customerMatchIdentifiers(row: Readonly<Record<string, unknown>>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const email = text(row['email']);
  const e =
    email === undefined ? undefined : t.isSha256(email) ? email.toLowerCase() : t.googleAdsEmail(email);
  if (e) out.push({ emailAddress: t.sha256(e) });
  const phone = text(row['phone']);
  const p =
    phone === undefined
      ? undefined
      : t.isSha256(phone)
        ? phone.toLowerCase()
        : t.phone(phone, 'e164', text(row['country']));
  if (p) out.push({ phoneNumber: t.sha256(p) });
  const given = text(row['first_name']);
  const family = text(row['last_name']);
  const g = given === undefined ? undefined : t.googleAdsName(given);
  const f = family === undefined ? undefined : t.googleAdsName(family);
  const country = text(row['country']);
  const region = country === undefined ? undefined : t.country(country)?.toUpperCase();
  const postal = text(row['postal_code'])?.trim();
  if (g && f && region && postal)
    out.push({
      address: { givenName: t.sha256(g), familyName: t.sha256(f), regionCode: region, postalCode: postal },
    });
  return out;
}

const CONSENT = { granted: 'CONSENT_GRANTED', denied: 'CONSENT_DENIED' } as const;

function memberConsent(row: Readonly<Record<string, unknown>>): Record<string, string> | undefined {
  const consent: Record<string, string> = {};
  for (const [column, field] of [
    ['ad_user_data', 'adUserData'],
    ['ad_personalization', 'adPersonalization'],
  ] as const) {
    const v = text(row[column])?.trim().toLowerCase();
    if (v === 'granted' || v === 'denied') consent[field] = CONSENT[v];
  }
  return Object.keys(consent).length > 0 ? consent : undefined;
}

/** Where a Customer Match list is: the Google Ads accounts and the user list id. */
export interface CustomerMatchTarget {
  /** The Data Manager origin (the stand-in's, in tests); default Google's. */
  readonly origin?: string;
  readonly operatingAccountId: string;
  readonly loginAccountId?: string;
  readonly userListId: string;
  /** Data Manager's validateOnly. */
  readonly validateOnly?: boolean;
  /**
   * The advertiser accepted the Customer Match terms: each `:ingest` says so
   * (`termsOfService.customerMatchTermsOfServiceStatus: ACCEPTED`), which Google requires to add
   * members by `userData`. Never assumed: the sync's `terms_of_service: accepted` sets it.
   */
  readonly termsAccepted?: boolean;
}

/** One `audienceMembers` request and the changes it carries (they fail together if refused). */
export interface CustomerMatchRequest<C extends AudienceChange> {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly changes: readonly C[];
}

/**
 * A page's requests to a Customer Match list — members added (`:ingest`), then removed
 * (`:remove`), at most 10,000 each — and the rows that cannot go (no identifier Google can match).
 * A removal carries the row as it was last sent, so a member is removed by the identifiers it was
 * added with.
 */
export function customerMatchRequests<C extends AudienceChange>(
  target: CustomerMatchTarget,
  changes: readonly C[],
): {
  readonly requests: readonly CustomerMatchRequest<C>[];
  readonly failed: readonly { change: C; reason: string }[];
} {
  const account = (id: string) => ({ accountType: 'GOOGLE_ADS', accountId: id.replace(/-/g, '') });
  const destination = {
    operatingAccount: account(target.operatingAccountId),
    ...(target.loginAccountId ? { loginAccount: account(target.loginAccountId) } : {}),
    productDestinationId: target.userListId,
  };
  const origin = (target.origin ?? GOOGLE_ADS_BASE_URL).replace(/\/+$/, '');
  const failed: { change: C; reason: string }[] = [];
  const parts = {
    ingest: [] as { change: C; member: Record<string, unknown> }[],
    remove: [] as { change: C; member: Record<string, unknown> }[],
  };
  for (const change of changes) {
    const userIdentifiers = customerMatchIdentifiers(change.data).slice(0, 10);
    if (userIdentifiers.length === 0) {
      failed.push({
        change,
        reason: `no identifier Google can match: give email, phone, or first_name, last_name, country and postal_code together`,
      });
      continue;
    }
    const consent = memberConsent(change.data);
    const member = { userData: { userIdentifiers }, ...(consent ? { consent } : {}) };
    (change.op === 'delete' ? parts.remove : parts.ingest).push({ change, member });
  }
  const requests: CustomerMatchRequest<C>[] = [];
  for (const verb of ['ingest', 'remove'] as const) {
    const list = parts[verb];
    for (let i = 0; i < list.length; i += CUSTOMER_MATCH_MAX_MEMBERS) {
      const slice = list.slice(i, i + CUSTOMER_MATCH_MAX_MEMBERS);
      requests.push({
        path: `${origin}/v1/audienceMembers:${verb}`,
        body: {
          destinations: [destination],
          audienceMembers: slice.map((s) => s.member),
          encoding: 'HEX',
          // Only an upload carries the terms (a removal adds no data).
          ...(verb === 'ingest' && target.termsAccepted
            ? { termsOfService: { customerMatchTermsOfServiceStatus: 'ACCEPTED' } }
            : {}),
          ...(target.validateOnly ? { validateOnly: true } : {}),
        },
        changes: slice.map((s) => s.change),
      });
    }
  }
  return { requests, failed };
}
