/**
 * The list prices the monthly bill needs beyond cost.ts's PRICES, and what the send-once claims
 * cost in Firestore (docs/scale.md, docs/delivery.md "What it costs"). Pure data and arithmetic;
 * bill.ts re-exports all of it.
 */
import { PRICES } from './cost.ts';

/** List prices the monthly bill needs beyond cost.ts's PRICES (as last known; unverified offline). */
export const MONTHLY_PRICES = Object.freeze({
  asOf: '2025–2026 list prices as last known (unverified offline; recheck before quoting)',
  /** Request-based billing: a minimum instance while it handles no request (Cloud Run's idle rate). */
  idleMinimum: { vcpuSecond: 0.0000025, gibSecond: 0.0000025 },
  /** Cloud Run free tier a month, per billing account. */
  free: {
    requestVcpuSeconds: 180_000,
    requestGibSeconds: 360_000,
    requests: 2_000_000,
    instanceVcpuSeconds: 240_000,
    instanceGibSeconds: 450_000,
    pubsubBytes: 10 * 2 ** 30,
    writeApiBytes: PRICES.writeApiFreeBytesPerMonth,
    queryBytes: 2 ** 40,
    storageBytes: 10 * 2 ** 30,
    loggingBytes: 50 * 2 ** 30,
    schedulerJobs: 3,
    secretVersions: 6,
    secretAccesses: 10_000,
    registryBytes: 0.5 * 2 ** 30,
  },
  /** BigQuery on-demand queries, at least 10 MB per table a statement reads. */
  queryPerTib: 6.25,
  /** BigQuery active logical storage. */
  storagePerGibMonth: 0.02,
  schedulerJobMonthly: 0.1,
  secretVersionMonthly: 0.06,
  secretPer10kAccesses: 0.03,
  /**
   * Cloud Storage, Standard class, per 1,000 operations (cloud.google.com/storage/pricing,
   * "Operation charges"): writes and listings (class A) cost twice as much in a multi-region or
   * dual-region bucket as in a region; reads (class B) the same everywhere.
   */
  storageClassAPer1000: { region: 0.005, multiRegion: 0.01 },
  storageClassBPer1000: 0.0004,
  /** Cloud Monitoring alerting, per condition a month (announced by Google; unverified offline). */
  alertConditionMonthly: 0.1,
  /** Artifact Registry storage (the functions' images). */
  registryPerGibMonth: 0.1,
  /**
   * The global external Application Load Balancer of `gateway.domain` (cloud.google.com/vpc/
   * network-pricing, "Load balancing"): forwarding rules (up to five, one price) by the hour, and
   * the data it processes, requests and answers alike.
   */
  loadBalancer: { forwardingRuleHourly: 0.025, processedPerGib: 0.008 },
  /**
   * Cloud CDN on the `gateway.origin_path` backend (cloud.google.com/cdn/pricing, read through the
   * search tool in 2026; unverified offline): cache data transfer out to Europe and North America,
   * the first 10 TiB a month (elsewhere 0.09–0.20), and HTTP(S) cache lookups, hit or miss.
   */
  cdn: { cacheEgressPerGib: 0.08, lookupsPer10k: 0.0075 },
  /**
   * Firestore Standard edition in a regional database (the claims: core/claims/claim-store.ts),
   * per 100,000 documents: the upper of the regional list prices as last known (us-central1
   * 0.09 / 0.01 / 0.03, European regions about 20 % more), unverified offline. A TTL deletion is
   * billed as a delete. The daily free quota (20,000 writes and deletes, 50,000 reads) is per
   * project and one database, left out here.
   */
  firestore: { writePer100k: 0.108, deletePer100k: 0.012, readPer100k: 0.036, storagePerGibMonth: 0.18 },
});

/**
 * The share of deliveries that are not a first fan-out's first try (retries after a 5xx or a
 * timeout, producers' copies, re-drives, replays): each takes a send-once claim (a write), reads
 * what holds it when one does (a read), and settles it (a write). A stated assumption, not a
 * measurement: the chaos run's outage shows it far higher for minutes, a quiet month lower.
 */
export const CLAIM_RETRY_SHARE = 0.02;
/**
 * A claim document's stored size, as Google's "Storage size calculations" page counts it (its
 * name, each field's name and value, 32 bytes; no index entries, every field being exempt):
 * measured on the Firestore twin by test/slow/bill-counters.test.ts, which holds this within 10 %:
 * an identity claim 210–211 bytes, a settled send 247–255, 240 on average at 3 deliveries an
 * event (the 300 estimated before was 25 % high).
 */
export const CLAIM_DOCUMENT_BYTES = 240;

/** Firestore operations of the claims for `events` events of `deliveriesPerEvent` deliveries each. */
export function claimCounts(
  events: number,
  deliveriesPerEvent: number,
  design: ClaimDesign = 'per-delivery',
  retryShare = CLAIM_RETRY_SHARE,
): ClaimCounts & { readonly documents: number } {
  const deliveries = events * deliveriesPerEvent;
  const others = deliveries * retryShare;
  // per-delivery (shipped): an identity claim an event, a settled record a delivery.
  // per-batch (modelled): one identity claim and one settled record per destination for a
  // producer's batch or push of `EVENTS_PER_BATCH` events.
  const firsts = design === 'per-delivery' ? events + deliveries : (events + deliveries) / EVENTS_PER_BATCH;
  const documents = firsts + others;
  return { writes: firsts + 2 * others, deletes: documents, reads: others, documents };
}

/** How the first fan-out's claims are kept (docs/delivery.md, "What it costs"). */
export type ClaimDesign = 'per-delivery' | 'per-batch';
/** Events of one producer's batch or push the per-batch design shares one document among (modelled). */
export const EVENTS_PER_BATCH = 10;

/** Firestore operations of the send-once claims in a period. */
export interface ClaimCounts {
  /** Creates and replaces: one document write each (a create that finds a claim writes nothing). */
  readonly writes: number;
  /** Releases and TTL expiries: one document delete each. */
  readonly deletes: number;
  /** Reads of a held claim after a refused create. */
  readonly reads: number;
}

/** What the claims cost in Firestore (USD, list prices above; no free quota), storage apart. */
export function claimCost(
  claims: ClaimCounts,
  prices: Pick<
    typeof MONTHLY_PRICES.firestore,
    'writePer100k' | 'deletePer100k' | 'readPer100k'
  > = MONTHLY_PRICES.firestore,
): number {
  return (
    (claims.writes * prices.writePer100k +
      claims.deletes * prices.deletePer100k +
      claims.reads * prices.readPer100k) /
    100_000
  );
}

/**
 * Storage of claim documents made at a steady rate over the month: each lives its 7 days
 * (SEND_ONCE_DAYS) and about a day more until TTL deletes it, so a month holds 8/30 of them.
 */
export function claimStorageCost(documents: number, prices = MONTHLY_PRICES.firestore): number {
  return ((documents * (8 / 30) * CLAIM_DOCUMENT_BYTES) / 2 ** 30) * prices.storagePerGibMonth;
}
