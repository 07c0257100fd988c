/**
 * Leasing and delivery: how a subscription's messages go out and come back. Consumers (streams,
 * push workers, waiting pulls) are fed round-robin within their flow control; a delivered message
 * is leased under an ack id naming that one delivery; an ack removes it (durably), a nack or an
 * expired lease makes it available again after the retry policy's backoff, or dead-letters it
 * after the last attempt; ordering keys keep one key's messages out one at a time, in order.
 * Leases and backoffs are in memory only, as Pub/Sub's are not promised across restarts.
 */
import { REC } from './codec.ts';
import type { EngineState } from './engine-state.ts';
import { invalid, tooLarge, tooSmall } from './errors.ts';
import { durationMs, shortName } from './resources.ts';
import { type Consumer, DELAYED, LEASED, READY, type SubMsg, type Subscription } from './subscription.ts';
import type { Delivery, StoredMessage } from './types.ts';

export const PULL_LIMITS = {
  maxPullMessages: 1000,
  /** Bytes per delivery batch, under the 4 MiB default receive limit of gRPC clients. */
  batchBytes: 3 * 1024 * 1024,
} as const;

/** ErrorInfo metadata Google's client reads for an exactly-once ack of an id that acks nothing. */
export const INVALID_ACK_ID = 'PERMANENT_FAILURE_INVALID_ACK_ID';

/** Per ack id failures of an exactly-once subscription (empty: every id succeeded). */
export type AckFailures = Map<string, string>;

const ACK_ID = /^(\d+)-(\d+)$/;

function lease(
  s: EngineState,
  sub: Subscription,
  sm: SubMsg,
  consumer: Consumer | undefined,
  leaseMs: number,
  now: number,
): Delivery {
  sm.attempts++;
  sm.state = LEASED;
  sm.leaseUntil = now + leaseMs;
  sm.ackId = `${sm.m.id}-${++s.leaseSeq}`;
  sm.consumer = consumer;
  sub.leased.add(sm);
  if (consumer) {
    consumer.outstanding++;
    consumer.outstandingBytes += sm.m.size;
  }
  if (sm.key) sub.keyLeased.set(sm.key, (sub.keyLeased.get(sm.key) ?? 0) + 1);
  wakeAt(s, sub, sm.leaseUntil);
  return {
    ackId: sm.ackId,
    message: sm.m,
    deliveryAttempt: sub.resource.deadLetterPolicy ? sm.attempts : 0,
    attempt: sm.attempts,
  };
}

/** Takes up to `max` deliverable messages (and `maxBytes`, at least one message) and leases them. */
function take(
  s: EngineState,
  sub: Subscription,
  max: number,
  maxBytes: number,
  consumer: Consumer | undefined,
  leaseMs: number,
): Delivery[] {
  const out: Delivery[] = [];
  const now = Date.now();
  const oldest = now - sub.retentionMs;
  let bytes = 0;
  // The fullness test is written out (no closure allocated per call).
  while (out.length < max && (out.length === 0 || bytes < maxBytes)) {
    const sm = sub.redeliver.length > 0 ? sub.redeliver.shift() : sub.ready.shift();
    if (sm === undefined) break;
    if (sm.state !== READY || sm.key !== '') continue;
    if (sm.m.publishTime < oldest) {
      // Past retention: dropped, as Google does; replay drops it again by the same rule.
      s.remove(sub, sm.m.id);
      continue;
    }
    out.push(lease(s, sub, sm, consumer, leaseMs, now));
    bytes += sm.m.size;
  }
  while (out.length < max && (out.length === 0 || bytes < maxBytes) && sub.readyKeys.length > 0) {
    const key = sub.readyKeys.shift() as string;
    sub.keyQueued.delete(key);
    if ((sub.keyLeased.get(key) ?? 0) > 0) continue;
    const q = sub.keyQueues.get(key);
    if (!q) continue;
    // Past retention: dropped like the others. A key's oldest messages are at its front.
    while (q.length > 0 && (q[0] as SubMsg).state === READY && (q[0] as SubMsg).m.publishTime < oldest) {
      s.remove(sub, (q[0] as SubMsg).m.id);
    }
    // All consecutive ready messages of one key go to the same consumer, in order.
    for (const sm of q) {
      if (sm.state !== READY || out.length >= max || (out.length > 0 && bytes >= maxBytes)) break;
      out.push(lease(s, sub, sm, consumer, leaseMs, now));
      bytes += sm.m.size;
    }
  }
  return out;
}

/** Adds a consumer (streaming pull stream or push worker) and starts feeding it. */
export function attach(s: EngineState, sub: Subscription, consumer: Consumer): void {
  sub.consumers.push(consumer);
  scheduleDispatch(s, sub);
}

export function detach(sub: Subscription, consumer: Consumer): void {
  const i = sub.consumers.indexOf(consumer);
  if (i >= 0) sub.consumers.splice(i, 1);
}

export function scheduleDispatch(s: EngineState, sub: Subscription): void {
  if (sub.dispatchScheduled || sub.consumers.length === 0 || s.closed) return;
  sub.dispatchScheduled = true;
  setImmediate(() => {
    sub.dispatchScheduled = false;
    dispatch(s, sub);
  });
}

function capacity(c: Consumer): { n: number; bytes: number } {
  const n = c.maxMessages > 0 ? c.maxMessages - c.outstanding : PULL_LIMITS.maxPullMessages;
  const bytes = c.maxBytes > 0 ? c.maxBytes - c.outstandingBytes : PULL_LIMITS.batchBytes;
  return { n: Math.min(n, PULL_LIMITS.maxPullMessages), bytes: Math.min(bytes, PULL_LIMITS.batchBytes) };
}

function dispatch(s: EngineState, sub: Subscription): void {
  if (s.subs.get(sub.name) !== sub) return;
  let progress = true;
  while (progress && sub.consumers.length > 0) {
    progress = false;
    const n = sub.consumers.length;
    for (let k = 0; k < n && sub.consumers.length > 0; k++) {
      sub.rr = (sub.rr + 1) % sub.consumers.length;
      const c = sub.consumers[sub.rr] as Consumer;
      const cap = capacity(c);
      if (cap.n <= 0 || cap.bytes <= 0) continue;
      const batch = take(s, sub, cap.n, cap.bytes, c, c.leaseMs());
      if (batch.length === 0) return;
      progress = true;
      c.deliver(batch);
    }
  }
}

/**
 * Unary pull: returns what is available now; when nothing is and `wait` is true, waits up to
 * `waitMs` for the first messages.
 */
export async function pull(
  s: EngineState,
  sub: Subscription,
  maxMessages: number,
  wait: boolean,
  waitMs: number,
  signal?: AbortSignal,
): Promise<Delivery[]> {
  if (maxMessages < 1) throw tooSmall('max_messages', maxMessages, 1, 'max_messages');
  const max = Math.min(maxMessages, PULL_LIMITS.maxPullMessages);
  const leaseMs = sub.resource.ackDeadlineSeconds * 1000;
  const now = take(s, sub, max, PULL_LIMITS.batchBytes, undefined, leaseMs);
  if (now.length > 0 || !wait || signal?.aborted) return now;
  return new Promise<Delivery[]>((resolve) => {
    // A caller gone (its deadline passed, the connection closed) takes nothing: a message that
    // arrives after must not be leased to no one until its ack deadline.
    const gone = () => {
      clearTimeout(timer);
      detach(sub, waiter);
      resolve([]);
    };
    const waiter: Consumer = {
      maxMessages: max,
      maxBytes: 0,
      outstanding: 0,
      outstandingBytes: 0,
      leaseMs: () => leaseMs,
      deliver: (batch) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', gone);
        detach(sub, waiter);
        // A pull's leases are not tied to a consumer that outlives the call.
        for (const d of batch) {
          const sm = sub.msgs.get(d.message.id);
          if (sm) sm.consumer = undefined;
        }
        resolve(batch);
      },
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', gone);
      detach(sub, waiter);
      resolve([]);
    }, waitMs);
    signal?.addEventListener('abort', gone, { once: true });
    attach(s, sub, waiter);
  });
}

function parseAckIds(ackIds: readonly string[]): number[] {
  const ids: number[] = [];
  for (const ackId of ackIds) {
    const m = ACK_ID.exec(ackId);
    if (!m) throw invalid(`You have passed an invalid ack ID to the service (ack_id=${ackId}).`, 'ack_ids');
    ids.push(Number(m[1]));
  }
  return ids;
}

/**
 * Acknowledges; resolves once the acks are durable. Without exactly-once delivery unknown or
 * already acked ids are ignored (an id from before a Seek acks nothing); with it, an id that is
 * not the message's current delivery fails, and the failures are returned by ack id.
 */
export async function acknowledge(
  s: EngineState,
  sub: Subscription,
  ackIds: readonly string[],
): Promise<AckFailures> {
  if (ackIds.length === 0) throw invalid('No ack ids specified.', 'ack_ids');
  const ids = parseAckIds(ackIds);
  const failures: AckFailures = new Map();
  const removed: number[] = [];
  ids.forEach((id, i) => {
    const ackId = ackIds[i] as string;
    if (!current(sub, id, ackId)) {
      if (sub.resource.enableExactlyOnceDelivery) failures.set(ackId, INVALID_ACK_ID);
      return;
    }
    if (s.ackOne(sub, id)) removed.push(id);
  });
  if (removed.length === 0) return failures;
  scheduleDispatch(s, sub);
  await s.append({ type: REC.ACK, sub: sub.name, ids: removed });
  return failures;
}

/**
 * Whether an ack id may settle its message: with exactly-once delivery only the current lease's
 * id; otherwise any id of a message still there, unless it was leased before the last Seek.
 */
function current(sub: Subscription, id: number, ackId: string): boolean {
  const sm = sub.msgs.get(id);
  if (!sm) return false;
  if (sub.resource.enableExactlyOnceDelivery) return sm.state === LEASED && sm.ackId === ackId;
  return Number(ackId.slice(ackId.indexOf('-') + 1)) > sub.seekSeq;
}

/** The message an ack id's current delivery leased, or undefined when the id is not current. */
function leasedBy(sub: Subscription, ackId: string): SubMsg | undefined {
  const sm = sub.msgs.get(Number(ackId.slice(0, ackId.indexOf('-'))));
  return sm && sm.state === LEASED && sm.ackId === ackId ? sm : undefined;
}

/**
 * Extends leases, or nacks with 0. Only the current delivery of a message is affected; with
 * exactly-once delivery other ids fail, returned by ack id.
 */
export function modifyAckDeadline(
  s: EngineState,
  sub: Subscription,
  ackIds: readonly string[],
  seconds: number,
): AckFailures {
  if (ackIds.length === 0) throw invalid('No ack ids specified.', 'ack_ids');
  // Google allows 0–600 s here (not the 10 s floor of the subscription's deadline).
  if (seconds < 0) throw tooSmall('ack_deadline_seconds', seconds, 0, 'ack_deadline_seconds');
  if (seconds > 600) throw tooLarge('ack_deadline_seconds', seconds, 600, 'ack_deadline_seconds');
  parseAckIds(ackIds);
  const now = Date.now();
  const failures: AckFailures = new Map();
  for (const ackId of ackIds) {
    const sm = leasedBy(sub, ackId);
    if (!sm) {
      if (sub.resource.enableExactlyOnceDelivery) failures.set(ackId, INVALID_ACK_ID);
      continue;
    }
    if (seconds === 0) {
      release(s, sub, sm, now);
    } else {
      sm.leaseUntil = now + seconds * 1000;
      wakeAt(s, sub, sm.leaseUntil);
    }
  }
  if (seconds === 0) scheduleDispatch(s, sub);
  return failures;
}

/** Nack from a push worker or stream, by ack id. */
export function nack(s: EngineState, sub: Subscription, ackId: string): void {
  const sm = leasedBy(sub, ackId);
  if (!sm) return;
  release(s, sub, sm, Date.now());
  scheduleDispatch(s, sub);
}

function backoffMs(sub: Subscription, attempts: number): number {
  const rp = sub.resource.retryPolicy;
  let min: number;
  let max: number;
  if (rp) {
    min = durationMs(rp.minimumBackoff) ?? 10_000;
    max = durationMs(rp.maximumBackoff) ?? 600_000;
  } else if (sub.delivers) {
    // No retry policy: redeliver quickly, but do not hammer a failing endpoint.
    min = 100;
    max = 10_000;
  } else {
    return 0;
  }
  const exp = Math.min(attempts - 1, 30);
  return Math.min(max, min * 2 ** exp);
}

/** A nack or an expired lease: redeliver after backoff, or dead-letter after the last attempt. */
function release(s: EngineState, sub: Subscription, sm: SubMsg, now: number): void {
  s.unlease(sub, sm);
  const dlp = sub.resource.deadLetterPolicy;
  if (dlp && sm.attempts >= dlp.maxDeliveryAttempts && s.topics.has(dlp.deadLetterTopic)) {
    deadLetter(s, sub, sm, dlp.deadLetterTopic);
    return;
  }
  // Counted attempts outlive a restart (quietly: nobody waits on a nack's bookkeeping, and
  // Google calls the count best-effort; a crash in between only loses this one increment).
  if (dlp) s.appendQuiet({ type: REC.ATTEMPTS, sub: sub.name, ids: [sm.m.id], attempts: [sm.attempts] });
  makeAvailable(s, sub, sm, now + backoffMs(sub, sm.attempts), true);
  if (sm.key) {
    // Ordering: later messages of the key that are out must come again after this one.
    for (const other of sub.keyQueues.get(sm.key) ?? []) {
      if (other !== sm && other.state === LEASED) {
        s.unlease(sub, other);
        makeAvailable(s, sub, other, now, false);
      }
    }
    s.queueKey(sub, sm.key);
  }
}

function makeAvailable(s: EngineState, sub: Subscription, sm: SubMsg, at: number, front: boolean): void {
  sm.consumer = undefined;
  if (at > Date.now()) {
    sm.state = DELAYED;
    sm.availableAt = at;
    sub.delayed.add(sm);
    wakeAt(s, sub, at);
    return;
  }
  sm.state = READY;
  if (!sm.key) {
    if (front) sub.redeliver.push(sm);
    else sub.ready.push(sm);
  }
}

function deadLetter(s: EngineState, sub: Subscription, sm: SubMsg, topicName: string): void {
  const m = sm.m;
  const [, project = ''] = sub.name.split('/');
  const attributes: Record<string, string> = {
    ...m.attributes,
    CloudPubSubDeadLetterSourceDeliveryCount: String(sm.attempts),
    CloudPubSubDeadLetterSourceSubscription: shortName(sub.name),
    CloudPubSubDeadLetterSourceSubscriptionProject: project,
    CloudPubSubDeadLetterSourceTopicPublishTime: new Date(m.publishTime).toISOString(),
  };
  const id = s.nextId++;
  let size = m.data.length + m.orderingKey.length;
  for (const k in attributes) size += k.length + (attributes[k] as string).length;
  const dead: StoredMessage = {
    id,
    publishTime: Date.now(),
    data: m.data,
    attributes,
    orderingKey: m.orderingKey,
    size,
    pb: undefined,
  };
  const touched = s.fanOut(topicName, [dead]);
  s.appendQuiet({ type: REC.PUBLISH, topic: topicName, messages: [dead] });
  // Acknowledged in the source, as Pub/Sub does (retained for Seek like any ack, also on replay).
  s.ackOne(sub, m.id);
  s.appendQuiet({ type: REC.ACK, sub: sub.name, ids: [m.id] });
  for (const t of touched) scheduleDispatch(s, t);
}

function wakeAt(s: EngineState, sub: Subscription, at: number): void {
  if (s.closed || at >= sub.timerAt) return;
  if (sub.timer) clearTimeout(sub.timer);
  sub.timerAt = at;
  sub.timer = setTimeout(() => wake(s, sub), Math.max(0, at - Date.now()));
  sub.timer.unref();
}

/** Expires leases and ends backoffs that are due, then re-arms the timer for the next one. */
function wake(s: EngineState, sub: Subscription): void {
  sub.timer = undefined;
  sub.timerAt = Number.POSITIVE_INFINITY;
  if (s.subs.get(sub.name) !== sub || s.closed) return;
  const now = Date.now();
  let next = Number.POSITIVE_INFINITY;
  const expired: SubMsg[] = [];
  for (const sm of sub.leased) {
    if (sm.leaseUntil <= now) expired.push(sm);
    else if (sm.leaseUntil < next) next = sm.leaseUntil;
  }
  for (const sm of expired) if (sm.state === LEASED) release(s, sub, sm, now);
  const due: SubMsg[] = [];
  for (const sm of sub.delayed) {
    if (sm.availableAt <= now) due.push(sm);
    else if (sm.availableAt < next) next = sm.availableAt;
  }
  for (const sm of due) {
    sub.delayed.delete(sm);
    makeAvailable(s, sub, sm, 0, true);
    if (sm.key) s.queueKey(sub, sm.key);
  }
  // Releases above may have armed a timer already; keep the earliest.
  if (next < Number.POSITIVE_INFINITY) wakeAt(s, sub, next);
  scheduleDispatch(s, sub);
}
