/**
 * One subscription's in-memory state: its resource, its compiled filter, and its messages, each
 * in one of four states (ready, leased, delayed for backoff, done) with the queues and sets that
 * index them; also what a consumer of its messages looks like. The engine's modules move messages
 * between the states (engine-state.ts enqueues and removes, leasing.ts leases and releases).
 */
import { Deque } from './deque.ts';
import { compileFilter, type FilterFn } from './filter.ts';
import { durationMs, type SubscriptionResource } from './resources.ts';
import type { Delivery, StoredMessage } from './types.ts';

/** A receiver of messages: a streaming pull stream, a waiting unary pull, or a push worker. */
export interface Consumer {
  /** Most messages it may hold at once (0 = no limit). */
  readonly maxMessages: number;
  /** Most bytes it may hold at once (0 = no limit). */
  readonly maxBytes: number;
  outstanding: number;
  outstandingBytes: number;
  /** Lease granted to messages delivered to it. */
  leaseMs(): number;
  deliver(batch: Delivery[]): void;
}

export interface PushHooks {
  /** Called when a subscription appears, changes, or is deleted (sub undefined). */
  onSubscriptionChanged(name: string, sub: Subscription | undefined): void;
}

/** A message's states in one subscription (numbers, not strings: they are compared per delivery). */
export const READY = 0;
export const LEASED = 1;
export const DELAYED = 2;
export const DONE = 3;

/** One message as one subscription holds it. */
export interface SubMsg {
  readonly m: StoredMessage;
  attempts: number;
  state: number;
  leaseUntil: number;
  availableAt: number;
  ackId: string;
  consumer: Consumer | undefined;
  /** Ordering key when the subscription orders, else ''. */
  readonly key: string;
}

const DEFAULT_RETENTION_MS = 7 * 86_400_000;

/** In-memory state of one subscription. */
export class Subscription {
  resource: SubscriptionResource;
  filter: FilterFn;
  readonly msgs = new Map<number, SubMsg>();
  readonly ready = new Deque<SubMsg>();
  readonly redeliver = new Deque<SubMsg>();
  readonly leased = new Set<SubMsg>();
  readonly delayed = new Set<SubMsg>();
  readonly keyQueues = new Map<string, SubMsg[]>();
  readonly keyLeased = new Map<string, number>();
  readonly readyKeys = new Deque<string>();
  readonly keyQueued = new Set<string>();
  readonly consumers: Consumer[] = [];
  rr = 0;
  timer: NodeJS.Timeout | undefined;
  timerAt = Number.POSITIVE_INFINITY;
  dispatchScheduled = false;
  retentionMs: number;
  /** Acknowledged messages kept for Seek (`retainAckedMessages`), by id. */
  readonly acked = new Map<number, StoredMessage>();
  /** Ack ids leased at or before this sequence number predate the last Seek: they ack nothing. */
  seekSeq = 0;

  constructor(resource: SubscriptionResource) {
    this.resource = resource;
    this.filter = Subscription.compile(resource.filter);
    this.retentionMs = durationMs(resource.messageRetentionDuration) ?? DEFAULT_RETENTION_MS;
  }

  static compile(filter: string): FilterFn {
    const c = compileFilter(filter);
    return c.ok ? c.fn : () => true;
  }

  setResource(resource: SubscriptionResource): void {
    this.resource = resource;
    this.retentionMs = durationMs(resource.messageRetentionDuration) ?? DEFAULT_RETENTION_MS;
  }

  get name(): string {
    return this.resource.name;
  }

  get ordered(): boolean {
    return this.resource.enableMessageOrdering;
  }

  get isPush(): boolean {
    return Boolean(this.resource.pushConfig.pushEndpoint);
  }

  /** Push, BigQuery and Cloud Storage subscriptions: the emulator itself takes their messages. */
  get delivers(): boolean {
    return (
      this.isPush ||
      this.resource.bigqueryConfig !== undefined ||
      this.resource.cloudStorageConfig !== undefined
    );
  }
}
