/**
 * The engine's state and its one way of changing durably: topics, subscriptions (with their
 * messages), snapshots, schemas and IAM policies in memory, and the append-only log behind them.
 *
 * Every change is applied in memory and appended to the log in the same synchronous step, so the
 * log order is the apply order; callers that must not answer before the change is durable await
 * the append. Replaying the log (`replay`) goes through the same appliers defined here (`putTopic`,
 * `enqueue`, `ackOne`, `applySeek`…), which is why they live beside it: a change the operations
 * make by other means would not survive a restart. `snapshot()` writes the whole state as records
 * for compaction. The operations (topics-and-subscriptions.ts, publish.ts, leasing.ts,
 * snapshots.ts, schema-registry.ts, iam.ts) read and change this state; engine.ts is their face.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppendLog, type FsyncPolicy, frame, readLog } from '@eventbus/emulator-common/append-log.ts';
import { decodeRecord, encodeRecord, type LogRecord, REC, type SnapshotResource } from './codec.ts';
import { notFound } from './errors.ts';
import { lockDataDir } from './lock.ts';
import {
  DELETED_TOPIC,
  parseName,
  type SubscriptionResource,
  shortName,
  type TopicResource,
} from './resources.ts';
import type { StoredSchema } from './schemas.ts';
import { DONE, LEASED, type PushHooks, READY, type SubMsg, Subscription } from './subscription.ts';
import type { StoredMessage } from './types.ts';

/** A snapshot: its resource and the messages a Seek to it makes unacknowledged again. */
export interface SnapshotState {
  resource: SnapshotResource;
  readonly msgs: Map<number, StoredMessage>;
}

export interface EngineOptions {
  readonly dataDir: string;
  readonly fsync: FsyncPolicy;
  /** Compact the log once it exceeds this many bytes and 4× the live data. */
  readonly compactBytes?: number;
}

export class EngineState {
  readonly topics = new Map<string, TopicResource>();
  readonly subs = new Map<string, Subscription>();
  readonly topicSubs = new Map<string, Set<Subscription>>();
  readonly snapshots = new Map<string, SnapshotState>();
  /** IAM policies by resource name (stored and returned; with `--iam` they grant: iam.ts). */
  readonly policies = new Map<string, unknown>();
  /** Schemas by name, each with its revisions newest first. */
  readonly schemas = new Map<string, StoredSchema>();
  nextId = 1;
  /**
   * Ack ids carry a lease sequence number, increasing across restarts (it starts at the clock),
   * so an ack id names one delivery: a later delivery of the message has another one.
   */
  leaseSeq = Date.now();
  closed = false;
  pushHooks: PushHooks | undefined;
  /**
   * Checks what Pub/Sub checks when a BigQuery or Cloud Storage subscription is created or its
   * config changed (the table or bucket exists): set by the export writers (exports.ts).
   */
  exportCheck: ((resource: SubscriptionResource) => Promise<void>) | undefined;
  readonly opts: EngineOptions;
  private liveBytes = 0;
  private log: AppendLog | undefined;
  private replaying = false;
  private readonly compactBytes: number;
  private unlock: () => void = () => undefined;

  private constructor(opts: EngineOptions) {
    this.opts = opts;
    this.compactBytes = opts.compactBytes ?? 64 * 1024 * 1024;
  }

  /** Opens the data directory: takes its lock, replays the log, compacts it. */
  static async open(opts: EngineOptions): Promise<EngineState> {
    const s = new EngineState(opts);
    mkdirSync(opts.dataDir, { recursive: true });
    s.unlock = lockDataDir(opts.dataDir);
    try {
      const path = join(opts.dataDir, 'pubsub.log');
      const { records } = readLog(path);
      s.replaying = true;
      for (const payload of records) s.replay(decodeRecord(payload));
      s.replaying = false;
      s.log = await AppendLog.create(path, opts.fsync, s.snapshot());
    } catch (err) {
      s.unlock();
      throw err;
    }
    return s;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const sub of this.subs.values()) {
      if (sub.timer) clearTimeout(sub.timer);
      sub.consumers.length = 0;
    }
    await this.log?.close();
    this.unlock();
    this.unlock = () => undefined;
  }

  // ---------- the log ----------

  append(rec: LogRecord): Promise<void> {
    return this.appendFramed(() => frame(encodeRecord(rec)));
  }

  appendFramed(framed: () => Buffer | Buffer[]): Promise<void> {
    if (this.replaying) return Promise.resolve();
    const log = this.log;
    if (!log) return Promise.reject(new Error('engine not open'));
    const done = log.append(framed());
    if (log.size > this.compactBytes && log.size > 4 * this.liveBytes) {
      log.requestCompaction(() => this.snapshot());
    }
    return done;
  }

  /** Fire-and-forget append for internal changes (dead-lettering) that nobody waits on. */
  appendQuiet(rec: LogRecord): void {
    this.append(rec).catch((err: unknown) => {
      process.stderr.write(`pubsub emulator: log write failed: ${String(err)}\n`);
    });
  }

  /** The whole state as framed log records (used to compact the log). */
  private snapshot(): Buffer[] {
    const out: Buffer[] = [frame(encodeRecord({ type: REC.NEXT_ID, next: this.nextId }))];
    for (const schema of this.schemas.values())
      out.push(frame(encodeRecord({ type: REC.SCHEMA_PUT, schema })));
    for (const topic of this.topics.values()) out.push(frame(encodeRecord({ type: REC.TOPIC_PUT, topic })));
    for (const sub of this.subs.values()) {
      out.push(frame(encodeRecord({ type: REC.SUB_PUT, sub: sub.resource })));
      let chunk: StoredMessage[] = [];
      let bytes = 0;
      for (const sm of sub.msgs.values()) {
        chunk.push(sm.m);
        bytes += sm.m.size;
        if (chunk.length >= 1000 || bytes > 8 * 1024 * 1024) {
          out.push(frame(encodeRecord({ type: REC.SUB_MESSAGES, sub: sub.name, messages: chunk })));
          chunk = [];
          bytes = 0;
        }
      }
      if (chunk.length > 0) {
        out.push(frame(encodeRecord({ type: REC.SUB_MESSAGES, sub: sub.name, messages: chunk })));
      }
      if (sub.resource.deadLetterPolicy) {
        const ids: number[] = [];
        const attempts: number[] = [];
        for (const sm of sub.msgs.values()) {
          if (sm.attempts === 0) continue;
          ids.push(sm.m.id);
          attempts.push(sm.attempts);
        }
        if (ids.length > 0)
          out.push(frame(encodeRecord({ type: REC.ATTEMPTS, sub: sub.name, ids, attempts })));
      }
      this.pruneAcked(sub);
      if (sub.acked.size > 0)
        out.push(
          frame(encodeRecord({ type: REC.RETAINED, sub: sub.name, messages: [...sub.acked.values()] })),
        );
    }
    for (const snap of this.snapshots.values()) {
      out.push(frame(encodeRecord({ type: REC.SNAP_PUT, snapshot: snap.resource, sub: '' })));
      if (snap.msgs.size > 0)
        out.push(
          frame(
            encodeRecord({
              type: REC.SNAP_MESSAGES,
              snapshot: snap.resource.name,
              messages: [...snap.msgs.values()],
            }),
          ),
        );
    }
    for (const [resource, policy] of this.policies)
      out.push(frame(encodeRecord({ type: REC.IAM_PUT, resource, policy })));
    return out;
  }

  private replay(rec: LogRecord): void {
    switch (rec.type) {
      case REC.NEXT_ID:
        this.nextId = Math.max(this.nextId, rec.next);
        return;
      case REC.TOPIC_PUT:
        this.putTopic(rec.topic);
        return;
      case REC.TOPIC_DEL:
        this.removeTopic(rec.name);
        return;
      case REC.SUB_PUT: {
        const existing = this.subs.get(rec.sub.name);
        if (existing) existing.setResource(rec.sub);
        const sub = existing ?? this.addSub(rec.sub);
        if (rec.sub.detached) this.dropAll(sub);
        return;
      }
      case REC.SUB_DEL:
        this.removeSub(rec.name);
        return;
      case REC.PUBLISH:
        for (const m of rec.messages) this.nextId = Math.max(this.nextId, m.id + 1);
        this.fanOut(rec.topic, rec.messages);
        return;
      case REC.SUB_MESSAGES: {
        const sub = this.subs.get(rec.sub);
        for (const m of rec.messages) {
          this.nextId = Math.max(this.nextId, m.id + 1);
          if (sub) this.enqueue(sub, m);
        }
        return;
      }
      case REC.ACK: {
        const sub = this.subs.get(rec.sub);
        if (sub) for (const id of rec.ids) this.ackOne(sub, id);
        return;
      }
      case REC.RETAINED:
        this.keepMessages(this.subs.get(rec.sub)?.acked, rec.messages);
        return;
      case REC.SNAP_PUT: {
        const from = rec.sub ? this.subs.get(rec.sub) : undefined;
        this.putSnapshot(rec.snapshot, from);
        return;
      }
      case REC.SNAP_MESSAGES:
        this.keepMessages(this.snapshots.get(rec.snapshot)?.msgs, rec.messages);
        return;
      case REC.SNAP_DEL:
        this.snapshots.delete(rec.name);
        this.policies.delete(rec.name);
        return;
      case REC.SEEK: {
        const sub = this.subs.get(rec.sub);
        if (sub) this.applySeek(sub, rec.time, rec.snapshot);
        return;
      }
      case REC.IAM_PUT:
        this.policies.set(rec.resource, rec.policy);
        return;
      case REC.SCHEMA_PUT:
        this.schemas.set(rec.schema.name, rec.schema);
        return;
      case REC.SCHEMA_DEL:
        this.schemas.delete(rec.name);
        return;
      case REC.ATTEMPTS: {
        const sub = this.subs.get(rec.sub);
        if (!sub) return;
        rec.ids.forEach((id, i) => {
          const sm = sub.msgs.get(id);
          if (sm) sm.attempts = Math.max(sm.attempts, rec.attempts[i] ?? 0);
        });
        return;
      }
    }
  }

  /** Replayed messages kept by id (retained acks, a snapshot's); ids stay ahead of them. */
  private keepMessages(
    into: Map<number, StoredMessage> | undefined,
    messages: readonly StoredMessage[],
  ): void {
    for (const m of messages) {
      this.nextId = Math.max(this.nextId, m.id + 1);
      into?.set(m.id, m);
    }
  }

  // ---------- lookups ----------

  getTopic(name: string): TopicResource {
    parseName(name, 'topics');
    const topic = this.topics.get(name);
    if (!topic) throw notFound(shortName(name));
    return topic;
  }

  getSubscription(name: string): Subscription {
    parseName(name, 'subscriptions');
    const sub = this.subs.get(name);
    if (!sub) throw notFound(shortName(name));
    return sub;
  }

  // ---------- appliers: shared by the operations and by replay ----------

  putTopic(topic: TopicResource): void {
    this.topics.set(topic.name, topic);
    if (!this.topicSubs.has(topic.name)) this.topicSubs.set(topic.name, new Set());
  }

  removeTopic(name: string): void {
    this.topics.delete(name);
    // Its IAM policy goes with it: a new topic of the name starts without grants, as in Pub/Sub.
    this.policies.delete(name);
    const subs = this.topicSubs.get(name);
    this.topicSubs.delete(name);
    // Google keeps subscriptions of a deleted topic, detached from it.
    for (const sub of subs ?? []) sub.setResource({ ...sub.resource, topic: DELETED_TOPIC });
  }

  addSub(resource: SubscriptionResource): Subscription {
    const sub = new Subscription(resource);
    this.subs.set(resource.name, sub);
    this.topicSubs.get(resource.topic)?.add(sub);
    return sub;
  }

  removeSub(name: string): Subscription | undefined {
    const sub = this.subs.get(name);
    if (!sub) return undefined;
    this.subs.delete(name);
    this.policies.delete(name);
    this.topicSubs.get(sub.resource.topic)?.delete(sub);
    for (const sm of sub.msgs.values()) {
      sm.state = DONE;
      this.liveBytes -= sm.m.size;
    }
    sub.msgs.clear();
    sub.acked.clear();
    if (sub.timer) clearTimeout(sub.timer);
    return sub;
  }

  dropAll(sub: Subscription): void {
    for (const id of [...sub.msgs.keys()]) this.remove(sub, id);
    sub.acked.clear();
  }

  /** Drops retained acknowledged messages older than the subscription's retention. */
  pruneAcked(sub: Subscription): void {
    const oldest = Date.now() - sub.retentionMs;
    for (const [id, m] of sub.acked) if (m.publishTime < oldest) sub.acked.delete(id);
  }

  putSnapshot(resource: SnapshotResource, from: Subscription | undefined): void {
    const msgs = new Map<number, StoredMessage>();
    for (const sm of from?.msgs.values() ?? []) msgs.set(sm.m.id, sm.m);
    this.snapshots.set(resource.name, { resource, msgs });
  }

  /** A seek's effect (snapshots.ts documents it); outstanding leases end with it. */
  applySeek(sub: Subscription, time: number | undefined, snapshot: string | undefined): void {
    this.pruneAcked(sub);
    const known = new Map<number, StoredMessage>(sub.acked);
    for (const sm of sub.msgs.values()) known.set(sm.m.id, sm.m);
    const snap = snapshot === undefined ? undefined : this.snapshots.get(snapshot);
    const keep: StoredMessage[] = snap
      ? [...snap.msgs.values()].filter((m) => sub.filter(m.attributes))
      : [...known.values()].filter((m) => m.publishTime >= (time ?? 0));
    const kept = new Set(keep.map((m) => m.id));
    for (const id of [...sub.msgs.keys()]) this.remove(sub, id);
    sub.acked.clear();
    if (sub.resource.retainAckedMessages)
      for (const [id, m] of known) if (!kept.has(id)) sub.acked.set(id, m);
    for (const m of keep.sort((a, b) => a.id - b.id)) this.enqueue(sub, m);
    sub.seekSeq = this.leaseSeq;
  }

  /** Gives published messages to the topic's snapshots and to its attached subscriptions' filters. */
  fanOut(topicName: string, messages: readonly StoredMessage[]): Subscription[] {
    const touched: Subscription[] = [];
    // A snapshot keeps what is published to its topic after it was made (a Seek to it delivers that too).
    for (const snap of this.snapshots.values()) {
      if (snap.resource.topic !== topicName) continue;
      for (const m of messages) snap.msgs.set(m.id, m);
    }
    for (const sub of this.topicSubs.get(topicName) ?? []) {
      if (sub.resource.detached) continue;
      let any = false;
      for (const m of messages) {
        if (sub.filter(m.attributes)) {
          this.enqueue(sub, m);
          any = true;
        }
      }
      if (any) touched.push(sub);
    }
    return touched;
  }

  enqueue(sub: Subscription, m: StoredMessage): void {
    if (sub.msgs.has(m.id)) return;
    const key = sub.ordered ? m.orderingKey : '';
    const sm: SubMsg = {
      m,
      attempts: 0,
      state: READY,
      // NaN, not 0: both hold timestamps (past the small-integer range) once set, and a field
      // that changes from small integer to double deprecates the object's shape, after which
      // every message enqueued before that first lease paid a shape migration (~2 us) when
      // delivery first touched it: all of a backlog. A double from the start never changes.
      leaseUntil: Number.NaN,
      availableAt: Number.NaN,
      ackId: '',
      consumer: undefined,
      key,
    };
    sub.msgs.set(m.id, sm);
    this.liveBytes += m.size;
    if (key) {
      let q = sub.keyQueues.get(key);
      if (!q) {
        q = [];
        sub.keyQueues.set(key, q);
      }
      q.push(sm);
      if (q.length === 1) this.queueKey(sub, key);
    } else {
      sub.ready.push(sm);
    }
  }

  /** Offers an ordering key for delivery when nothing of it is out and its head is ready. */
  queueKey(sub: Subscription, key: string): void {
    if (sub.keyQueued.has(key) || (sub.keyLeased.get(key) ?? 0) > 0) return;
    const head = sub.keyQueues.get(key)?.[0];
    if (!head || head.state !== READY) return;
    sub.keyQueued.add(key);
    sub.readyKeys.push(key);
  }

  /** Drops a message from a subscription (acked, expired or dead-lettered). */
  remove(sub: Subscription, id: number): SubMsg | undefined {
    const sm = sub.msgs.get(id);
    if (!sm) return undefined;
    sub.msgs.delete(id);
    this.liveBytes -= sm.m.size;
    if (sm.state === LEASED) this.unlease(sub, sm);
    sub.delayed.delete(sm);
    sm.state = DONE;
    if (sm.key) {
      const q = sub.keyQueues.get(sm.key);
      if (q) {
        const i = q.indexOf(sm);
        if (i >= 0) q.splice(i, 1);
        if (q.length === 0) sub.keyQueues.delete(sm.key);
        else this.queueKey(sub, sm.key);
      }
    }
    return sm;
  }

  /** Ends a message's lease: its consumer's and its key's counts no longer include it. */
  unlease(sub: Subscription, sm: SubMsg): void {
    sub.leased.delete(sm);
    const c = sm.consumer;
    if (c) {
      c.outstanding--;
      c.outstandingBytes -= sm.m.size;
      sm.consumer = undefined;
    }
    if (sm.key) {
      const n = (sub.keyLeased.get(sm.key) ?? 1) - 1;
      if (n <= 0) sub.keyLeased.delete(sm.key);
      else sub.keyLeased.set(sm.key, n);
    }
  }

  /** Removes an acknowledged message, keeping it for Seek when the subscription retains acks. */
  ackOne(sub: Subscription, id: number): boolean {
    const sm = this.remove(sub, id);
    if (!sm) return false;
    if (sub.resource.retainAckedMessages) sub.acked.set(id, sm.m);
    return true;
  }
}
