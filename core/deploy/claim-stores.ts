/**
 * Claim stores priced by capacity, modelled and not built (#97; docs/delivery.md, "What it
 * costs"): the send-once and identity claims kept in Cloud Bigtable or in Memorystore for Redis
 * instead of Firestore, which bills each write. A capacity store bills what it keeps running
 * whether or not events come, so it pays above a rate (the break-even) and costs money idle.
 * Pure arithmetic over claimCounts (core/deploy/bill.ts), which says how many claim writes,
 * reads and documents a rate makes.
 */
import { SEND_ONCE_DAYS } from '../claims/send-once.ts';

/** Where the claims are kept: Firestore and Bigtable are built (`claims.store`); Memorystore is modelled. */
export type ClaimStore = 'firestore' | 'bigtable' | 'memorystore';

/**
 * List prices and documented capacities as last known, unverified offline (recheck before
 * quoting). Both bill per provisioned capacity by the hour, whatever the use.
 */
export const CAPACITY_PRICES = Object.freeze({
  bigtable: {
    /** A node of an SSD cluster (us-central1; European regions about 10 % more), at least one. */
    nodeHourly: 0.65,
    /** SSD storage, as Bigtable measures it on disk (compressed). */
    ssdPerGibMonth: 0.17,
    /** Rows written a second per SSD node, 1 KB rows (cloud.google.com/bigtable/docs/performance). */
    rowsPerSecondPerNode: 14_000,
    /** CPU a single-cluster instance is recommended to stay under (the same page, "plan capacity"). */
    utilisation: 0.7,
    source:
      'cloud.google.com/bigtable/pricing ($0.65 a node-hour, $0.17 per GiB-month of SSD, us-central1) and cloud.google.com/bigtable/docs/performance (14,000 rows written a second per SSD node), as last known; unverified offline',
  },
  memorystore: {
    /** Memorystore for Redis, Basic tier (no replica), the largest capacity tier's rate (over 100 GB). */
    gibHourly: 0.016,
    /** The largest instance Memorystore for Redis offers (Basic and Standard alike). */
    maxGib: 300,
    /** Memory a claim takes in Redis: its 64-character key, a small hash and Redis's own overhead. */
    bytesPerClaim: 200,
    source:
      'cloud.google.com/memorystore/docs/redis/pricing (Basic tier, over 100 GB, us-central1; Standard, with a replica, costs about twice) and redis-tiers (300 GB at most), as last known; unverified offline',
  },
});

/**
 * Bytes a claim row takes in Bigtable, measured on the twin (test/slow/bill-counters.test.ts, which
 * holds this to the measure within 10 %): its one cell (token, expiry and fields in one value,
 * adapters/bigtable-claims.ts) stored with the row key, family, qualifier and an 8-byte timestamp,
 * as Bigtable keeps a cell on disk; an identity claim 217 bytes, a settled send 261–270, 253 on
 * average at about 3 deliveries an event (three cells a claim, before, stored the key three times:
 * 385, 419–428 and 410). Uncompressed: Bigtable bills the compressed size, which no page says how
 * to foresee.
 */
export const BIGTABLE_ROW_BYTES = 253;
/**
 * Days a claim row stays on disk: its 7 days, then garbage collection by age drops it at the
 * next compaction, which Bigtable says happens within about a week: up to 14 days, counted so.
 */
const BIGTABLE_KEPT_DAYS = SEND_ONCE_DAYS + 7;
const HOURS_A_MONTH = 30 * 24;

/** Claim operations a second at a sustained rate, from claimCounts per event. */
export interface ClaimRates {
  /** Conditional writes (a claim taken, a first sighting, a settlement): CheckAndMutateRow in Bigtable. */
  readonly writesPerSecond: number;
  readonly readsPerSecond: number;
  /** Claims made a second (each kept SEND_ONCE_DAYS). */
  readonly claimsPerSecond: number;
}

/** A capacity store's month at a sustained rate: what it provisions, and its price. */
export interface CapacityMonth {
  readonly store: Exclude<ClaimStore, 'firestore'>;
  readonly monthly: number;
  /** What it provisions, in words (nodes and storage, or memory). */
  readonly detail: string;
  /** False when the claims of 7 days do not fit the largest instance (Memorystore). */
  readonly fits: boolean;
}

/**
 * Row operations of claim writes and reads in Bigtable: a conditional write (CheckAndMutateRow)
 * reads its row and writes it, two; a read (ReadRows of one key), one. What the nodes are sized
 * for, and what test/slow/bill-counters.test.ts sets against the twin's count of calls.
 */
export function bigtableRowOperations(writes: number, reads: number): number {
  return 2 * writes + reads;
}

/**
 * Bigtable's month: nodes for the conditional writes and reads (bigtableRowOperations) at the
 * recommended 70 % of a node, at least one node; SSD storage for the rows kept until compaction
 * collects them. No charge per operation or delete.
 */
export function bigtableMonth(r: ClaimRates, minNodes = 1): CapacityMonth {
  const b = CAPACITY_PRICES.bigtable;
  const rowOps = bigtableRowOperations(r.writesPerSecond, r.readsPerSecond);
  const nodes = Math.max(minNodes, Math.ceil(rowOps / (b.rowsPerSecondPerNode * b.utilisation)));
  const gib = (r.claimsPerSecond * BIGTABLE_KEPT_DAYS * 86_400 * BIGTABLE_ROW_BYTES) / 2 ** 30;
  return {
    store: 'bigtable',
    monthly: nodes * b.nodeHourly * HOURS_A_MONTH + gib * b.ssdPerGibMonth,
    detail: `${nodes} SSD node${nodes === 1 ? '' : 's'} for ${Math.round(rowOps).toLocaleString('en-US')} row operations a second, ${Math.round(gib).toLocaleString('en-US')} GiB of claims kept up to ${BIGTABLE_KEPT_DAYS} days`,
    fits: true,
  };
}

/**
 * Memorystore's month: memory for every claim alive (7 days; Redis expires a key on time), at the
 * Basic tier's lowest rate, at least 1 GiB. `fits` is false past the largest instance.
 */
export function memorystoreMonth(r: ClaimRates): CapacityMonth {
  const m = CAPACITY_PRICES.memorystore;
  const gib = Math.max(1, (r.claimsPerSecond * SEND_ONCE_DAYS * 86_400 * m.bytesPerClaim) / 2 ** 30);
  return {
    store: 'memorystore',
    monthly: gib * m.gibHourly * HOURS_A_MONTH,
    detail: `${Math.round(gib).toLocaleString('en-US')} GiB of memory for 7 days of claims${gib > m.maxGib ? `, more than one instance's ${m.maxGib} GB` : ''}`,
    fits: gib <= m.maxGib,
  };
}

/** A capacity store's month at a rate (Bigtable: at least `minNodes`, the settings' `claims.bigtable.nodes`). */
export function capacityMonth(
  store: Exclude<ClaimStore, 'firestore'>,
  r: ClaimRates,
  minNodes = 1,
): CapacityMonth {
  return store === 'bigtable' ? bigtableMonth(r, minNodes) : memorystoreMonth(r);
}

/**
 * The lowest sustained rate (events a second, to the event) from which a capacity store's month
 * costs no more than Firestore's at the same rate; undefined when none up to `upTo`.
 */
export function breakEvenEventsPerSecond(
  firestoreMonth: (eventsPerSecond: number) => number,
  capacity: (eventsPerSecond: number) => number,
  upTo = 100_000,
): number | undefined {
  for (let rate = 1; rate <= upTo; rate++) if (capacity(rate) <= firestoreMonth(rate)) return rate;
  return undefined;
}
