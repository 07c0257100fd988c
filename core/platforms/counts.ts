/**
 * A platform's counting read (docs/delivery.md, "Counted by the platform"): the one request that
 * asks the platform's own reporting how many events it counted on a day, and how its answer is
 * read. Each platform that publishes a count writes its slot in its folder (`counts.ts`) and its
 * index.ts sets it as `countReads`; the scheduler's PlatformCounts job and `eventbus reconcile`
 * send it through the egress gate and write `platform_counts` rows. Pure.
 */
import type { Destination } from '../../schemas/settings.ts';

/** The config key that turns a destination's counting reads on (a boolean; default off). */
export const COUNTS_CONFIG = 'counts';

/** One event name's count for the day, as the platform names the event. */
export interface PlatformCount {
  readonly event_name: string;
  readonly counted: number;
}

/** The request asking for a day's counts. */
export interface CountsRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  /** What the log may show of the URL (no token in it). */
  readonly redactedUrl: string;
  readonly body?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** How the request is authorised. */
export type CountsAuth =
  /** A destination secret (its role), put in the request by `request`. */
  | { readonly kind: 'secret'; readonly role: string }
  /** An OAuth token of the scope, as a Bearer header: the scheduler's own account, or the role's credentials. */
  | { readonly kind: 'google_oauth'; readonly scope: string; readonly role?: string };

export interface CountReads {
  readonly auth: CountsAuth;
  /**
   * Further secret roles the request carries besides its credential (Google Ads' developer
   * token), read by the scheduler and given to `request` by role.
   */
  readonly secrets?: readonly string[];
  /** Why the destination cannot be asked (a missing config key), or undefined. */
  problem(d: Readonly<Destination>): string | undefined;
  /** The request for `day` (YYYY-MM-DD, UTC) with the secret (or the OAuth token) and the further secrets. */
  request(
    d: Readonly<Destination>,
    day: string,
    credential: string,
    secrets?: Readonly<Record<string, string>>,
  ): CountsRequest;
  /** The counts of an answer, or undefined when the body is not one. */
  read(body: unknown, day: string): PlatformCount[] | undefined;
  /** What the rows' `source` says (`meta pixel stats v25.0`). */
  source(d: Readonly<Destination>): string;
}

/** Whether a destination asks for its platform's counts (only `true` itself, never a string). */
export function countsEnabled(d: Readonly<Destination>): boolean {
  return d.enabled !== false && d.config?.[COUNTS_CONFIG] === true;
}

/** The secret roles the scheduler needs for a destination's counting reads (core/plan.ts grants them). */
export function countsSecretRoles(
  d: Readonly<Destination>,
  reads: CountReads | undefined,
): readonly string[] {
  if (!reads || !countsEnabled(d)) return [];
  return [...(reads.auth.role ? [reads.auth.role] : []), ...(reads.secrets ?? [])];
}

/** Adds up counts by event name (a platform answering per hour gives several rows a name). */
export function sumByName(counts: readonly PlatformCount[]): PlatformCount[] {
  const by = new Map<string, number>();
  for (const c of counts) by.set(c.event_name, (by.get(c.event_name) ?? 0) + c.counted);
  return [...by].map(([event_name, counted]) => ({ event_name, counted }));
}

/** A count the platform gave as a number or a decimal string (Google's int64), else undefined. */
export function countOf(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * A count the warehouse joins itself, per event, from tables the platform writes into the
 * customer's BigQuery (GA4's BigQuery export): the reconciliation view runs it for each destination
 * that links them. Pure.
 */
export interface CountsJoin {
  /** What the view's `counted_source` says (`ga4_bigquery_export`). */
  readonly source: string;
  /** The dataset the platform writes for the destination (`project.dataset`), or undefined when not linked. */
  linked(d: Readonly<Destination>): string | undefined;
  /**
   * A SELECT of `day` and `counted`: of the destination's sent events (`sent`, a relation of `day`
   * and `event_id`), how many the platform's tables hold, per day; `counted` is NULL for a day
   * the platform has not written yet.
   */
  sql(d: Readonly<Destination>, sent: string): string;
}
