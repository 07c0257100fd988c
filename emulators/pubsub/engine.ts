/**
 * The emulator's state and delivery semantics, independent of the wire (REST or gRPC): topics,
 * subscriptions, fan-out with filters, leases and ack deadlines, nacks with retry backoff,
 * dead-lettering, ordering keys, retention, and durability through the append-only log.
 *
 * Every state change is applied in memory and appended to the log in the same synchronous step,
 * so the log order is the apply order and replaying it rebuilds the same state. Callers that
 * must not answer before the change is durable await the append.
 *
 * Why one file of ~1000 lines: that single apply-and-append step is the engine's invariant, and
 * every operation (topics, subscriptions, publish, leases, acks, dead letters, retention,
 * compaction) mutates the same maps inside it; split across modules, the order of apply and
 * append would be everyone's and no one's responsibility. The message types are in types.ts,
 * the log records' encoding in codec.ts, the wire encodings in wire.ts.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AppendLog, type FsyncPolicy, frame, frameParts, readLog } from '../common/append-log.ts';
import {
  decodeRecord,
  encodeRecord,
  type LogRecord,
  publishRawHead,
  REC,
  type SnapshotResource,
  storedMessage,
} from './codec.ts';
import { Deque } from './deque.ts';
import { ApiError, alreadyExists, invalid, notFound, tooLarge, tooSmall } from './errors.ts';
import { compileFilter, type FilterFn } from './filter.ts';
import { lockDataDir } from './lock.ts';
import {
  DELETED_TOPIC,
  durationMs,
  type ExportState,
  normalizeSubscription,
  normalizeTopic,
  parseName,
  type SubscriptionInput,
  type SubscriptionResource,
  shortName,
  type TopicInput,
  type TopicResource,
  updateSubscription,
  updateTopic,
} from './resources.ts';
import {
  checkSchemaSettings,
  DELETED_SCHEMA,
  newRevision,
  revisionOf,
  type SchemaRevision,
  type SchemaType,
  type StoredSchema,
  schemaAttributes,
  schemaId,
  splitRevision,
  withoutRevision,
} from './schemas.ts';
import type { Delivery, PublishInput, StoredMessage } from './types.ts';
import { type DecodedPublish, PUBLISH_LIMITS } from './wire.ts';

export const LIMITS = {
  ...PUBLISH_LIMITS,
  maxPullMessages: 1000,
  /** Bytes per delivery batch, under the 4 MiB default receive limit of gRPC clients. */
  batchBytes: 3 * 1024 * 1024,
} as const;

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

const READY = 0;
const LEASED = 1;
const DELAYED = 2;
const DONE = 3;

interface SubMsg {
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

export interface PushHooks {
  /** Called when a subscription appears, changes, or is deleted (sub undefined). */
  onSubscriptionChanged(name: string, sub: Subscription | undefined): void;
}

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
    this.retentionMs = durationMs(resource.messageRetentionDuration) ?? 7 * 86_400_000;
  }

  static compile(filter: string): FilterFn {
    const c = compileFilter(filter);
    return c.ok ? c.fn : () => true;
  }

  setResource(resource: SubscriptionResource): void {
    this.resource = resource;
    this.retentionMs = durationMs(resource.messageRetentionDuration) ?? 7 * 86_400_000;
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

const ACK_ID = /^(\d+)-(\d+)$/;

/** How long after a publish is answered its messages are first offered to subscribers. */
export const PUBLISH_TO_DELIVERY_MS = 10;

/** A snapshot: its resource and the messages a Seek to it makes unacknowledged again. */
interface SnapshotState {
  resource: SnapshotResource;
  readonly msgs: Map<number, StoredMessage>;
}

/** Pub/Sub keeps a snapshot for 7 days less the age of its oldest unacknowledged message. */
const SNAPSHOT_LIFE_MS = 7 * 86_400_000;

/** ErrorInfo metadata Google's client reads for an exactly-once ack of an id that acks nothing. */
export const INVALID_ACK_ID = 'PERMANENT_FAILURE_INVALID_ACK_ID';

export interface IamPolicy {
  version: number;
  bindings: unknown[];
  etag: string;
}

/** Per ack id failures of an exactly-once subscription (empty: every id succeeded). */
export type AckFailures = Map<string, string>;

export interface EngineOptions {
  readonly dataDir: string;
  readonly fsync: FsyncPolicy;
  /** Compact the log once it exceeds this many bytes and 4× the live data. */
  readonly compactBytes?: number;
}

export class Engine {
  readonly topics = new Map<string, TopicResource>();
  readonly subs = new Map<string, Subscription>();
  private readonly topicSubs = new Map<string, Set<Subscription>>();
  private nextId = 1;
  private liveBytes = 0;
  private log: AppendLog | undefined;
  private replaying = false;
  private closed = false;
  private readonly compactBytes: number;
  private readonly opts: EngineOptions;
  pushHooks: PushHooks | undefined;
  /**
   * Checks what Pub/Sub checks when a BigQuery or Cloud Storage subscription is created or its
   * config changed (the table or bucket exists): set by the export writers (exports.ts).
   */
  exportCheck: ((resource: SubscriptionResource) => Promise<void>) | undefined;
  private unlock: () => void = () => undefined;
  readonly snapshots = new Map<string, SnapshotState>();
  /** IAM policies by resource name (stored and returned; never enforced). */
  readonly policies = new Map<string, unknown>();
  /** Schemas by name, each with its revisions newest first. */
  readonly schemas = new Map<string, StoredSchema>();
  /**
   * Ack ids carry a lease sequence number, increasing across restarts (it starts at the clock),
   * so an ack id names one delivery: a later delivery of the message has another one.
   */
  private leaseSeq = Date.now();

  private constructor(opts: EngineOptions) {
    this.opts = opts;
    this.compactBytes = opts.compactBytes ?? 64 * 1024 * 1024;
  }

  /** Opens the data directory: replays the log, compacts it, and returns a ready engine. */
  static async open(opts: EngineOptions): Promise<Engine> {
    const engine = new Engine(opts);
    mkdirSync(opts.dataDir, { recursive: true });
    engine.unlock = lockDataDir(opts.dataDir);
    try {
      const path = join(opts.dataDir, 'pubsub.log');
      const { records } = readLog(path);
      engine.replaying = true;
      for (const payload of records) engine.replay(decodeRecord(payload));
      engine.replaying = false;
      engine.log = await AppendLog.create(path, opts.fsync, engine.snapshot());
    } catch (err) {
      engine.unlock();
      throw err;
    }
    return engine;
  }

  // ---------- durability ----------

  private append(rec: LogRecord): Promise<void> {
    return this.appendFramed(() => frame(encodeRecord(rec)));
  }

  private appendFramed(framed: () => Buffer | Buffer[]): Promise<void> {
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
  private appendQuiet(rec: LogRecord): void {
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

  // ---------- admin ----------

  private putTopic(topic: TopicResource): void {
    this.topics.set(topic.name, topic);
    if (!this.topicSubs.has(topic.name)) this.topicSubs.set(topic.name, new Set());
  }

  private removeTopic(name: string): void {
    this.topics.delete(name);
    const subs = this.topicSubs.get(name);
    this.topicSubs.delete(name);
    // Google keeps subscriptions of a deleted topic, detached from it.
    for (const sub of subs ?? []) sub.setResource({ ...sub.resource, topic: DELETED_TOPIC });
  }

  private addSub(resource: SubscriptionResource): Subscription {
    const sub = new Subscription(resource);
    this.subs.set(resource.name, sub);
    this.topicSubs.get(resource.topic)?.add(sub);
    return sub;
  }

  private removeSub(name: string): Subscription | undefined {
    const sub = this.subs.get(name);
    if (!sub) return undefined;
    this.subs.delete(name);
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

  getTopic(name: string): TopicResource {
    parseName(name, 'topics');
    const topic = this.topics.get(name);
    if (!topic) throw notFound(shortName(name));
    return topic;
  }

  async createTopic(input: TopicInput, name: string): Promise<TopicResource> {
    const topic = this.checkTopicSchema(normalizeTopic(input, name));
    if (this.topics.has(name)) throw alreadyExists(shortName(name));
    this.putTopic(topic);
    await this.append({ type: REC.TOPIC_PUT, topic });
    return topic;
  }

  async updateTopic(input: TopicInput, name: string, paths: readonly string[]): Promise<TopicResource> {
    const current = this.getTopic(name);
    const topic = this.checkTopicSchema(updateTopic(current, input, paths));
    this.putTopic(topic);
    await this.append({ type: REC.TOPIC_PUT, topic });
    return topic;
  }

  async deleteTopic(name: string): Promise<void> {
    this.getTopic(name);
    const affected = [...(this.topicSubs.get(name) ?? [])];
    this.removeTopic(name);
    await this.append({ type: REC.TOPIC_DEL, name });
    for (const sub of affected) this.pushHooks?.onSubscriptionChanged(sub.name, sub);
  }

  listTopics(project: string): TopicResource[] {
    const prefix = `projects/${project}/topics/`;
    return [...this.topics.values()].filter((t) => t.name.startsWith(prefix)).sort(byName);
  }

  listTopicSubscriptions(topicName: string): string[] {
    this.getTopic(topicName);
    return [...(this.topicSubs.get(topicName) ?? [])].map((s) => s.name).sort();
  }

  private topicExists = (name: string): boolean => this.topics.has(name);

  getSubscription(name: string): Subscription {
    parseName(name, 'subscriptions');
    const sub = this.subs.get(name);
    if (!sub) throw notFound(shortName(name));
    return sub;
  }

  async createSubscription(input: SubscriptionInput, name: string): Promise<SubscriptionResource> {
    const resource = normalizeSubscription(input, name, this.topicExists);
    if (this.subs.has(name)) throw alreadyExists(shortName(name));
    if (!this.topics.has(resource.topic)) throw notFound(shortName(resource.topic));
    if (resource.bigqueryConfig || resource.cloudStorageConfig) {
      await this.checkExport(resource);
      // Another create of the same name may have won while the check waited.
      if (this.subs.has(name)) throw alreadyExists(shortName(name));
    }
    const sub = this.addSub(resource);
    await this.append({ type: REC.SUB_PUT, sub: resource });
    this.pushHooks?.onSubscriptionChanged(name, sub);
    return resource;
  }

  async updateSubscription(
    input: SubscriptionInput,
    name: string,
    paths: readonly string[],
  ): Promise<SubscriptionResource> {
    const sub = this.getSubscription(name);
    const resource = updateSubscription(sub.resource, input, paths, this.topicExists);
    // A config cleared (an empty one) makes a pull subscription again: nothing to check.
    if (
      (resource.bigqueryConfig || resource.cloudStorageConfig) &&
      paths.some((p) => /^(bigquery|cloud_?storage)/i.test(p))
    )
      await this.checkExport(resource);
    sub.setResource(resource);
    await this.append({ type: REC.SUB_PUT, sub: resource });
    this.pushHooks?.onSubscriptionChanged(name, sub);
    return resource;
  }

  private async checkExport(resource: SubscriptionResource): Promise<void> {
    if (!this.exportCheck)
      throw new ApiError(
        'FAILED_PRECONDITION',
        'BigQuery and Cloud Storage subscriptions need the BigQuery and Storage emulators: start this emulator with --bigquery-endpoint and --storage-endpoint (or BIGQUERY_EMULATOR_HOST and STORAGE_EMULATOR_HOST).',
      );
    await this.exportCheck(resource);
  }

  /**
   * An export subscription's health, as its writer last found it: RESOURCE_ERROR with the config's
   * state (NOT_FOUND, SCHEMA_MISMATCH) while it cannot write, ACTIVE again once it can. In memory
   * only, like leases: a restart reports ACTIVE until the next write tells otherwise.
   */
  setExportState(sub: Subscription, state: ExportState): void {
    const r = sub.resource;
    const subState = state === 'ACTIVE' ? 'ACTIVE' : 'RESOURCE_ERROR';
    if (r.bigqueryConfig && (r.bigqueryConfig.state ?? 'ACTIVE') !== state)
      sub.setResource({ ...r, state: subState, bigqueryConfig: { ...r.bigqueryConfig, state } });
    else if (r.cloudStorageConfig && (r.cloudStorageConfig.state ?? 'ACTIVE') !== state)
      sub.setResource({ ...r, state: subState, cloudStorageConfig: { ...r.cloudStorageConfig, state } });
  }

  async modifyPushConfig(name: string, input: SubscriptionInput['pushConfig']): Promise<void> {
    await this.updateSubscription({ pushConfig: input ?? {} }, name, ['pushConfig']);
  }

  async deleteSubscription(name: string): Promise<void> {
    this.getSubscription(name);
    const sub = this.removeSub(name);
    await this.append({ type: REC.SUB_DEL, name });
    if (sub) for (const c of [...sub.consumers]) this.detach(sub, c);
    this.pushHooks?.onSubscriptionChanged(name, undefined);
  }

  listSubscriptions(project: string): SubscriptionResource[] {
    const prefix = `projects/${project}/subscriptions/`;
    return [...this.subs.values()]
      .map((s) => s.resource)
      .filter((s) => s.name.startsWith(prefix))
      .sort(byName);
  }

  /**
   * DetachSubscription: the subscription stays, `detached: true`, its messages (and retained
   * ones) are dropped, nothing more is delivered to it, and its consumers are let go.
   */
  async detachSubscription(name: string): Promise<void> {
    const sub = this.getSubscription(name);
    const resource: SubscriptionResource = { ...sub.resource, detached: true };
    sub.setResource(resource);
    this.dropAll(sub);
    for (const c of [...sub.consumers]) this.detach(sub, c);
    await this.append({ type: REC.SUB_PUT, sub: resource });
    this.pushHooks?.onSubscriptionChanged(name, sub);
  }

  /** A detached subscription delivers nothing: Pub/Sub answers FAILED_PRECONDITION. */
  checkAttached(sub: Subscription): void {
    if (sub.resource.detached)
      throw new ApiError(
        'FAILED_PRECONDITION',
        `Subscription is detached (resource=${shortName(sub.name)}).`,
      );
  }

  private dropAll(sub: Subscription): void {
    for (const id of [...sub.msgs.keys()]) this.remove(sub, id);
    sub.acked.clear();
  }

  /** Drops retained acknowledged messages older than the subscription's retention. */
  private pruneAcked(sub: Subscription): void {
    const oldest = Date.now() - sub.retentionMs;
    for (const [id, m] of sub.acked) if (m.publishTime < oldest) sub.acked.delete(id);
  }

  // ---------- snapshots and seek ----------

  private putSnapshot(resource: SnapshotResource, from: Subscription | undefined): void {
    const msgs = new Map<number, StoredMessage>();
    for (const sm of from?.msgs.values() ?? []) msgs.set(sm.m.id, sm.m);
    this.snapshots.set(resource.name, { resource, msgs });
  }

  /** A live snapshot; an expired one is deleted on the way (Pub/Sub expires them on its own). */
  getSnapshot(name: string): SnapshotState {
    parseName(name, 'snapshots');
    const snap = this.snapshots.get(name);
    if (snap && snap.resource.expireTime <= Date.now()) {
      this.snapshots.delete(name);
      this.appendQuiet({ type: REC.SNAP_DEL, name });
    }
    const live = this.snapshots.get(name);
    if (!live) throw notFound(shortName(name));
    return live;
  }

  async createSnapshot(
    name: string,
    subscription: string,
    labels?: Record<string, string>,
  ): Promise<SnapshotResource> {
    parseName(name, 'snapshots');
    const sub = this.getSubscription(subscription);
    const existing = this.snapshots.get(name);
    if (existing && existing.resource.expireTime > Date.now()) throw alreadyExists(shortName(name));
    if (sub.resource.topic === DELETED_TOPIC)
      throw new ApiError('FAILED_PRECONDITION', "The subscription's topic has been deleted.");
    let oldest = Date.now();
    for (const sm of sub.msgs.values()) if (sm.m.publishTime < oldest) oldest = sm.m.publishTime;
    const resource: SnapshotResource = {
      name,
      topic: sub.resource.topic,
      expireTime: oldest + SNAPSHOT_LIFE_MS,
      ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
    };
    this.putSnapshot(resource, sub);
    await this.append({ type: REC.SNAP_PUT, snapshot: resource, sub: sub.name });
    return resource;
  }

  async updateSnapshot(
    name: string,
    patch: { labels?: Record<string, string> | undefined; expireTime?: number | undefined },
    paths: readonly string[],
  ): Promise<SnapshotResource> {
    const snap = this.getSnapshot(name);
    if (paths.length === 0)
      throw invalid(
        'The update_mask in the UpdateSnapshotRequest must be set, and must be non-empty.',
        'update_mask',
      );
    const resource: SnapshotResource = { ...snap.resource };
    for (const path of paths) {
      if (path === 'labels') {
        if (patch.labels && Object.keys(patch.labels).length > 0) resource.labels = { ...patch.labels };
        else delete resource.labels;
      } else if (path === 'expire_time' || path === 'expireTime') {
        if (patch.expireTime === undefined) throw invalid('expire_time must be set.', 'snapshot.expire_time');
        resource.expireTime = patch.expireTime;
      } else {
        throw invalid(
          `Invalid update_mask provided in the UpdateSnapshotRequest: the field ${path} cannot be updated.`,
          'update_mask',
        );
      }
    }
    snap.resource = resource;
    await this.append({ type: REC.SNAP_PUT, snapshot: resource, sub: '' });
    return resource;
  }

  async deleteSnapshot(name: string): Promise<void> {
    this.getSnapshot(name);
    this.snapshots.delete(name);
    await this.append({ type: REC.SNAP_DEL, name });
  }

  listSnapshots(project: string): SnapshotResource[] {
    const prefix = `projects/${project}/snapshots/`;
    const out: SnapshotResource[] = [];
    for (const name of [...this.snapshots.keys()]) {
      if (!name.startsWith(prefix)) continue;
      try {
        out.push(this.getSnapshot(name).resource);
      } catch {
        // Expired just now: gone.
      }
    }
    return out.sort(byName);
  }

  /**
   * Seek to a publish time (messages published before it are acknowledged, those at or after it
   * that the subscription still has, or retains with `retainAckedMessages`, are not) or to a
   * snapshot (its messages, through the subscription's filter, are the unacknowledged ones).
   * Either way outstanding leases end: what is unacknowledged is delivered again.
   */
  async seek(
    name: string,
    target: { time?: number | undefined; snapshot?: string | undefined },
  ): Promise<void> {
    const sub = this.getSubscription(name);
    if (target.snapshot !== undefined) {
      const snap = this.getSnapshot(target.snapshot);
      if (snap.resource.topic !== sub.resource.topic)
        throw new ApiError(
          'FAILED_PRECONDITION',
          `The snapshot's topic (${snap.resource.topic}) is not the subscription's topic (${sub.resource.topic}).`,
        );
    } else if (target.time === undefined) {
      throw invalid('A seek needs a time or a snapshot.', 'target');
    }
    this.applySeek(sub, target.time, target.snapshot);
    await this.append({
      type: REC.SEEK,
      sub: sub.name,
      ...(target.snapshot !== undefined ? { snapshot: target.snapshot } : { time: target.time as number }),
    });
    this.scheduleDispatch(sub);
  }

  private applySeek(sub: Subscription, time: number | undefined, snapshot: string | undefined): void {
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

  /** A topic whose schema settings name a schema (and revisions) there are. */
  private checkTopicSchema(topic: TopicResource): TopicResource {
    if (topic.schemaSettings) checkSchemaSettings(topic.schemaSettings, (n) => this.schemas.get(n));
    return topic;
  }

  // ---------- schemas ----------

  private schemaOr404(name: string): StoredSchema {
    schemaId(name);
    const schema = this.schemas.get(name);
    if (!schema) throw notFound(name);
    return schema;
  }

  private async putSchema(schema: StoredSchema): Promise<void> {
    this.schemas.set(schema.name, schema);
    await this.append({ type: REC.SCHEMA_PUT, schema });
  }

  async createSchema(name: string, type: SchemaType, definition: string): Promise<SchemaRevision> {
    schemaId(name);
    if (this.schemas.has(name)) throw alreadyExists(name);
    const rev = newRevision(name, type, definition, Date.now());
    await this.putSchema({ name, revisions: [rev] });
    return rev;
  }

  /** A schema's newest revision, or the one `name@revisionId` names. */
  getSchema(nameWithRevision: string): SchemaRevision {
    const { name, revisionId } = splitRevision(nameWithRevision);
    return revisionOf(this.schemaOr404(name), revisionId);
  }

  listSchemas(project: string): SchemaRevision[] {
    const prefix = `projects/${project}/schemas/`;
    return [...this.schemas.values()]
      .filter((s) => s.name.startsWith(prefix))
      .sort(byName)
      .map((s) => revisionOf(s, undefined));
  }

  listSchemaRevisions(name: string): SchemaRevision[] {
    return [...this.schemaOr404(name).revisions];
  }

  async commitSchema(name: string, type: SchemaType, definition: string): Promise<SchemaRevision> {
    const schema = this.schemaOr404(name);
    const rev = newRevision(name, type, definition, Date.now());
    await this.putSchema({ name, revisions: [rev, ...schema.revisions] });
    return rev;
  }

  /** A new revision with the definition of an earlier one. */
  async rollbackSchema(name: string, revisionId: string): Promise<SchemaRevision> {
    const schema = this.schemaOr404(name);
    const old = revisionOf(schema, revisionId);
    const rev = newRevision(name, old.type, old.definition, Date.now());
    await this.putSchema({ name, revisions: [rev, ...schema.revisions] });
    return rev;
  }

  async deleteSchemaRevision(nameWithRevision: string, given?: string): Promise<SchemaRevision> {
    const split = splitRevision(nameWithRevision);
    const revisionId = split.revisionId ?? given;
    if (!revisionId) throw invalid('A revision id is required (name@revisionId).', 'name');
    const schema = this.schemaOr404(split.name);
    const deleted = revisionOf(schema, revisionId);
    await this.putSchema(withoutRevision(schema, revisionId));
    return deleted;
  }

  /** Deletes a schema; topics that named it keep settings naming `_deleted-schema_`, as Pub/Sub's. */
  async deleteSchema(name: string): Promise<void> {
    this.schemaOr404(name);
    this.schemas.delete(name);
    await this.append({ type: REC.SCHEMA_DEL, name });
    for (const topic of this.topics.values()) {
      if (topic.schemaSettings?.schema !== name) continue;
      const updated: TopicResource = {
        ...topic,
        schemaSettings: { ...topic.schemaSettings, schema: DELETED_SCHEMA },
      };
      this.putTopic(updated);
      await this.append({ type: REC.TOPIC_PUT, topic: updated });
    }
  }

  // ---------- IAM (stored and returned, never enforced) ----------

  private checkIamResource(resource: string): void {
    const kind = resource.split('/')[2];
    if (kind === 'topics') this.getTopic(resource);
    else if (kind === 'subscriptions') this.getSubscription(resource);
    else if (kind === 'snapshots') this.getSnapshot(resource);
    else throw invalid(`Invalid resource name: (name=${resource})`, 'resource');
  }

  /** The policy as stored: `{version, bindings, etag}` with the etag in base64. */
  getIamPolicy(resource: string): IamPolicy {
    this.checkIamResource(resource);
    return (
      (this.policies.get(resource) as IamPolicy | undefined) ?? { version: 0, bindings: [], etag: 'ACAB' }
    );
  }

  async setIamPolicy(
    resource: string,
    policy: { version?: number; bindings?: unknown[] },
  ): Promise<IamPolicy> {
    this.checkIamResource(resource);
    const stored: IamPolicy = {
      version: policy.version ?? 0,
      bindings: policy.bindings ?? [],
      etag: Buffer.from(String(Date.now())).toString('base64'),
    };
    this.policies.set(resource, stored);
    await this.append({ type: REC.IAM_PUT, resource, policy: stored });
    return stored;
  }

  // ---------- publish ----------

  /**
   * Fast path of checkPublish: true when the request is certainly valid, judged on string
   * lengths (a UTF-16 unit is at most 3 UTF-8 bytes) without measuring every string's bytes.
   * When it cannot tell, checkPublish measures exactly and names the first violation.
   */
  private static withinLimits(messages: readonly PublishInput[]): boolean {
    let total = 0;
    const key = messages[0]?.orderingKey ?? '';
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as PublishInput;
      if (m.orderingKey !== key || m.orderingKey.length * 3 > LIMITS.orderingKeyBytes) return false;
      let size = m.data.length + m.orderingKey.length * 3;
      let n = 0;
      for (const k in m.attributes) {
        const v = m.attributes[k] as string;
        if (k.length === 0 || k.length * 3 > LIMITS.attributeKeyBytes) return false;
        if (v.length * 3 > LIMITS.attributeValueBytes) return false;
        if (k.charCodeAt(0) === 103 /* g */ && k.startsWith('goog')) return false;
        size += (k.length + v.length) * 3;
        n++;
      }
      if (n > LIMITS.attributesPerMessage || (n === 0 && m.data.length === 0)) return false;
      if (size > LIMITS.bytesPerMessage) return false;
      total += size;
    }
    return total <= LIMITS.bytesPerRequest;
  }

  /** Validates a publish request against Google's limits (docs/google-wire.md §1). */
  static checkPublish(messages: readonly PublishInput[]): void {
    if (messages.length === 0) tooSmallThrow();
    if (messages.length > LIMITS.messagesPerRequest) {
      throw tooLarge('message_count', messages.length, LIMITS.messagesPerRequest, 'messages');
    }
    if (Engine.withinLimits(messages)) return;
    let total = 0;
    const key = messages[0]?.orderingKey ?? '';
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as PublishInput;
      const keys = Object.keys(m.attributes);
      if (m.data.length === 0 && keys.length === 0) {
        throw invalid(
          'One or more messages in the publish request is empty. Each message must contain either non-empty data, or at least one attribute.',
          `messages[${i}]`,
        );
      }
      if (keys.length > LIMITS.attributesPerMessage) {
        throw tooLarge(
          'attribute_count',
          keys.length,
          LIMITS.attributesPerMessage,
          `messages[${i}].attributes`,
        );
      }
      let size = m.data.length + Buffer.byteLength(m.orderingKey);
      for (const k of keys) {
        const kb = Buffer.byteLength(k);
        const vb = Buffer.byteLength(m.attributes[k] as string);
        if (kb === 0) throw invalid('Attribute keys must be non-empty.', `messages[${i}].attributes`);
        if (kb > LIMITS.attributeKeyBytes) {
          throw tooLarge('attribute_key_size', kb, LIMITS.attributeKeyBytes, `messages[${i}].attributes`);
        }
        if (vb > LIMITS.attributeValueBytes) {
          throw tooLarge(
            'attribute_value_size',
            vb,
            LIMITS.attributeValueBytes,
            `messages[${i}].attributes[${k}]`,
          );
        }
        if (k.startsWith('goog')) {
          throw invalid(
            `The attribute key "${k}" is reserved: keys starting with "goog" are not allowed.`,
            `messages[${i}].attributes`,
          );
        }
        size += kb + vb;
      }
      const okb = Buffer.byteLength(m.orderingKey);
      if (okb > LIMITS.orderingKeyBytes) {
        throw tooLarge('ordering_key_size', okb, LIMITS.orderingKeyBytes, `messages[${i}].ordering_key`);
      }
      if (m.orderingKey !== key) {
        throw invalid(
          'All messages in a publish request must have the same ordering key.',
          `messages[${i}].ordering_key`,
        );
      }
      if (size > LIMITS.bytesPerMessage) {
        throw tooLarge('message_size', size, LIMITS.bytesPerMessage, `messages[${i}]`);
      }
      total += size;
    }
    if (total > LIMITS.bytesPerRequest) throw tooLarge('request_size', total, LIMITS.bytesPerRequest);
  }

  /**
   * Publishes; resolves with the message ids once the messages are durable. `raw`, when given,
   * is the PublishRequest these inputs were decoded from (gRPC): it is logged as received.
   */
  publish(topicName: string, inputs: readonly PublishInput[], raw?: Buffer): Promise<string[]> {
    return this.publishBatch(topicName, inputs.length, false, () => inputs, raw);
  }

  /**
   * Publishes a gRPC PublishRequest, logged as the bytes it arrived as. Its messages are decoded
   * only when something needs them: limits its bytes could not vouch for, a topic with a schema,
   * subscriptions or snapshots to give them to.
   */
  publishRequest(req: DecodedPublish): Promise<string[]> {
    return this.publishBatch(req.topic, req.count, req.withinLimits, () => req.messages, req.raw);
  }

  private async publishBatch(
    topicName: string,
    count: number,
    withinLimits: boolean,
    messagesOf: () => readonly PublishInput[],
    raw: Buffer | undefined,
  ): Promise<string[]> {
    parseName(topicName, 'topics');
    if (!withinLimits) Engine.checkPublish(messagesOf());
    const topic = this.topics.get(topicName);
    if (!topic) throw notFound(shortName(topicName));
    // A topic with a schema stamps its messages with the schema's attributes (the subscriber's
    // client decodes by them); they are logged as stored, not as the request received them.
    if (topic.schemaSettings) {
      const extra = schemaAttributes(topic.schemaSettings, this.schemas.get(topic.schemaSettings.schema));
      const stamped = messagesOf().map((m) => ({
        ...m,
        attributes: { ...m.attributes, ...extra },
        plain: false,
      }));
      messagesOf = () => stamped;
      raw = undefined;
    }
    const now = Date.now();
    const firstId = this.nextId;
    // Stored forms are needed to log without `raw` and to fan out; a topic without live
    // subscriptions logged from `raw` needs neither, so its messages are not built.
    let keep = !raw;
    for (const sub of this.topicSubs.get(topicName) ?? []) if (!sub.resource.detached) keep = true;
    for (const snap of this.snapshots.values()) if (snap.resource.topic === topicName) keep = true;
    const messages: StoredMessage[] = [];
    const inputs = keep ? messagesOf() : [];
    const ids: string[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const id = this.nextId++;
      const idText = String(id);
      if (keep) messages.push(storedMessage(inputs[i] as PublishInput, id, now, idText));
      ids[i] = idText;
    }
    const touched = messages.length > 0 ? this.fanOut(topicName, messages) : [];
    if (raw) await this.appendFramed(() => frameParts([publishRawHead(firstId, now), raw]));
    else await this.append({ type: REC.PUBLISH, topic: topicName, messages });
    // Delivered a moment after the publish is answered, as Pub/Sub's own latency has it: a
    // publisher that awaits its message id before it expects the message (Google's seek tests
    // do) gets the id first.
    if (touched.length > 0) {
      const timer = setTimeout(() => {
        for (const sub of touched) this.scheduleDispatch(sub);
      }, PUBLISH_TO_DELIVERY_MS);
      timer.unref();
    }
    return ids;
  }

  private fanOut(topicName: string, messages: readonly StoredMessage[]): Subscription[] {
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

  private enqueue(sub: Subscription, m: StoredMessage): void {
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

  private queueKey(sub: Subscription, key: string): void {
    if (sub.keyQueued.has(key) || (sub.keyLeased.get(key) ?? 0) > 0) return;
    const head = sub.keyQueues.get(key)?.[0];
    if (!head || head.state !== READY) return;
    sub.keyQueued.add(key);
    sub.readyKeys.push(key);
  }

  /** Drops a message from a subscription (acked, expired or dead-lettered). */
  private remove(sub: Subscription, id: number): SubMsg | undefined {
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

  private unlease(sub: Subscription, sm: SubMsg): void {
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

  // ---------- delivery ----------

  private lease(
    sub: Subscription,
    sm: SubMsg,
    consumer: Consumer | undefined,
    leaseMs: number,
    now: number,
  ): Delivery {
    sm.attempts++;
    sm.state = LEASED;
    sm.leaseUntil = now + leaseMs;
    sm.ackId = `${sm.m.id}-${++this.leaseSeq}`;
    sm.consumer = consumer;
    sub.leased.add(sm);
    if (consumer) {
      consumer.outstanding++;
      consumer.outstandingBytes += sm.m.size;
    }
    if (sm.key) sub.keyLeased.set(sm.key, (sub.keyLeased.get(sm.key) ?? 0) + 1);
    this.wakeAt(sub, sm.leaseUntil);
    return {
      ackId: sm.ackId,
      message: sm.m,
      deliveryAttempt: sub.resource.deadLetterPolicy ? sm.attempts : 0,
      attempt: sm.attempts,
    };
  }

  /** Takes up to `max` deliverable messages (and `maxBytes`, at least one message) and leases them. */
  private take(
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
        this.remove(sub, sm.m.id);
        continue;
      }
      out.push(this.lease(sub, sm, consumer, leaseMs, now));
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
        this.remove(sub, (q[0] as SubMsg).m.id);
      }
      // All consecutive ready messages of one key go to the same consumer, in order.
      for (const sm of q) {
        if (sm.state !== READY || out.length >= max || (out.length > 0 && bytes >= maxBytes)) break;
        out.push(this.lease(sub, sm, consumer, leaseMs, now));
        bytes += sm.m.size;
      }
    }
    return out;
  }

  /** Adds a consumer (streaming pull stream or push worker) and starts feeding it. */
  attach(sub: Subscription, consumer: Consumer): void {
    sub.consumers.push(consumer);
    this.scheduleDispatch(sub);
  }

  detach(sub: Subscription, consumer: Consumer): void {
    const i = sub.consumers.indexOf(consumer);
    if (i >= 0) sub.consumers.splice(i, 1);
  }

  scheduleDispatch(sub: Subscription): void {
    if (sub.dispatchScheduled || sub.consumers.length === 0 || this.closed) return;
    sub.dispatchScheduled = true;
    setImmediate(() => {
      sub.dispatchScheduled = false;
      this.dispatch(sub);
    });
  }

  private capacity(c: Consumer): { n: number; bytes: number } {
    const n = c.maxMessages > 0 ? c.maxMessages - c.outstanding : LIMITS.maxPullMessages;
    const bytes = c.maxBytes > 0 ? c.maxBytes - c.outstandingBytes : LIMITS.batchBytes;
    return { n: Math.min(n, LIMITS.maxPullMessages), bytes: Math.min(bytes, LIMITS.batchBytes) };
  }

  private dispatch(sub: Subscription): void {
    if (this.subs.get(sub.name) !== sub) return;
    let progress = true;
    while (progress && sub.consumers.length > 0) {
      progress = false;
      const n = sub.consumers.length;
      for (let k = 0; k < n && sub.consumers.length > 0; k++) {
        sub.rr = (sub.rr + 1) % sub.consumers.length;
        const c = sub.consumers[sub.rr] as Consumer;
        const cap = this.capacity(c);
        if (cap.n <= 0 || cap.bytes <= 0) continue;
        const batch = this.take(sub, cap.n, cap.bytes, c, c.leaseMs());
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
  async pull(name: string, maxMessages: number, wait: boolean, waitMs = 500): Promise<Delivery[]> {
    const sub = this.getSubscription(name);
    this.checkAttached(sub);
    if (maxMessages < 1) throw tooSmall('max_messages', maxMessages, 1, 'max_messages');
    const max = Math.min(maxMessages, LIMITS.maxPullMessages);
    const leaseMs = sub.resource.ackDeadlineSeconds * 1000;
    const now = this.take(sub, max, LIMITS.batchBytes, undefined, leaseMs);
    if (now.length > 0 || !wait) return now;
    return new Promise<Delivery[]>((resolve) => {
      const waiter: Consumer = {
        maxMessages: max,
        maxBytes: 0,
        outstanding: 0,
        outstandingBytes: 0,
        leaseMs: () => leaseMs,
        deliver: (batch) => {
          clearTimeout(timer);
          this.detach(sub, waiter);
          // A pull's leases are not tied to a consumer that outlives the call.
          for (const d of batch) {
            const sm = sub.msgs.get(d.message.id);
            if (sm) sm.consumer = undefined;
          }
          resolve(batch);
        },
      };
      const timer = setTimeout(() => {
        this.detach(sub, waiter);
        resolve([]);
      }, waitMs);
      this.attach(sub, waiter);
    });
  }

  private parseAckIds(ackIds: readonly string[]): number[] {
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
  async acknowledge(name: string, ackIds: readonly string[]): Promise<AckFailures> {
    const sub = this.getSubscription(name);
    if (ackIds.length === 0) throw invalid('No ack ids specified.', 'ack_ids');
    const ids = this.parseAckIds(ackIds);
    const failures: AckFailures = new Map();
    const removed: number[] = [];
    ids.forEach((id, i) => {
      const ackId = ackIds[i] as string;
      if (!this.current(sub, id, ackId)) {
        if (sub.resource.enableExactlyOnceDelivery) failures.set(ackId, INVALID_ACK_ID);
        return;
      }
      if (this.ackOne(sub, id)) removed.push(id);
    });
    if (removed.length === 0) return failures;
    this.scheduleDispatch(sub);
    await this.append({ type: REC.ACK, sub: sub.name, ids: removed });
    return failures;
  }

  /**
   * Whether an ack id may settle its message: with exactly-once delivery only the current lease's
   * id; otherwise any id of a message still there, unless it was leased before the last Seek.
   */
  private current(sub: Subscription, id: number, ackId: string): boolean {
    const sm = sub.msgs.get(id);
    if (!sm) return false;
    if (sub.resource.enableExactlyOnceDelivery) return sm.state === LEASED && sm.ackId === ackId;
    return Number(ackId.slice(ackId.indexOf('-') + 1)) > sub.seekSeq;
  }

  /** Removes an acknowledged message, keeping it for Seek when the subscription retains acks. */
  private ackOne(sub: Subscription, id: number): boolean {
    const sm = this.remove(sub, id);
    if (!sm) return false;
    if (sub.resource.retainAckedMessages) sub.acked.set(id, sm.m);
    return true;
  }

  /**
   * Extends leases, or nacks with 0. Only the current delivery of a message is affected; with
   * exactly-once delivery other ids fail, returned by ack id.
   */
  modifyAckDeadline(name: string, ackIds: readonly string[], seconds: number): AckFailures {
    const sub = this.getSubscription(name);
    if (ackIds.length === 0) throw invalid('No ack ids specified.', 'ack_ids');
    // Google allows 0–600 s here (not the 10 s floor of the subscription's deadline).
    if (seconds < 0) throw tooSmall('ack_deadline_seconds', seconds, 0, 'ack_deadline_seconds');
    if (seconds > 600) throw tooLarge('ack_deadline_seconds', seconds, 600, 'ack_deadline_seconds');
    this.parseAckIds(ackIds);
    const now = Date.now();
    const failures: AckFailures = new Map();
    for (const ackId of ackIds) {
      const sm = sub.msgs.get(Number(ackId.slice(0, ackId.indexOf('-'))));
      if (!sm || sm.state !== LEASED || sm.ackId !== ackId) {
        if (sub.resource.enableExactlyOnceDelivery) failures.set(ackId, INVALID_ACK_ID);
        continue;
      }
      if (seconds === 0) {
        this.release(sub, sm, now);
      } else {
        sm.leaseUntil = now + seconds * 1000;
        this.wakeAt(sub, sm.leaseUntil);
      }
    }
    if (seconds === 0) this.scheduleDispatch(sub);
    return failures;
  }

  /** Nack from a push worker or stream, by ack id. */
  nack(sub: Subscription, ackId: string): void {
    const sm = sub.msgs.get(Number(ackId.slice(0, ackId.indexOf('-'))));
    if (!sm || sm.state !== LEASED || sm.ackId !== ackId) return;
    this.release(sub, sm, Date.now());
    this.scheduleDispatch(sub);
  }

  private backoffMs(sub: Subscription, attempts: number): number {
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
  private release(sub: Subscription, sm: SubMsg, now: number): void {
    this.unlease(sub, sm);
    const dlp = sub.resource.deadLetterPolicy;
    if (dlp && sm.attempts >= dlp.maxDeliveryAttempts && this.topics.has(dlp.deadLetterTopic)) {
      this.deadLetter(sub, sm, dlp.deadLetterTopic);
      return;
    }
    // Counted attempts outlive a restart (quietly: nobody waits on a nack's bookkeeping, and
    // Google calls the count best-effort; a crash in between only loses this one increment).
    if (dlp) this.appendQuiet({ type: REC.ATTEMPTS, sub: sub.name, ids: [sm.m.id], attempts: [sm.attempts] });
    this.makeAvailable(sub, sm, now + this.backoffMs(sub, sm.attempts), true);
    if (sm.key) {
      // Ordering: later messages of the key that are out must come again after this one.
      for (const other of sub.keyQueues.get(sm.key) ?? []) {
        if (other !== sm && other.state === LEASED) {
          this.unlease(sub, other);
          this.makeAvailable(sub, other, now, false);
        }
      }
      this.queueKey(sub, sm.key);
    }
  }

  private makeAvailable(sub: Subscription, sm: SubMsg, at: number, front: boolean): void {
    sm.consumer = undefined;
    if (at > Date.now()) {
      sm.state = DELAYED;
      sm.availableAt = at;
      sub.delayed.add(sm);
      this.wakeAt(sub, at);
      return;
    }
    sm.state = READY;
    if (!sm.key) {
      if (front) sub.redeliver.push(sm);
      else sub.ready.push(sm);
    }
  }

  private deadLetter(sub: Subscription, sm: SubMsg, topicName: string): void {
    const m = sm.m;
    const [, project = ''] = sub.name.split('/');
    const attributes: Record<string, string> = {
      ...m.attributes,
      CloudPubSubDeadLetterSourceDeliveryCount: String(sm.attempts),
      CloudPubSubDeadLetterSourceSubscription: shortName(sub.name),
      CloudPubSubDeadLetterSourceSubscriptionProject: project,
      CloudPubSubDeadLetterSourceTopicPublishTime: new Date(m.publishTime).toISOString(),
    };
    const id = this.nextId++;
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
    const touched = this.fanOut(topicName, [dead]);
    this.appendQuiet({ type: REC.PUBLISH, topic: topicName, messages: [dead] });
    // Acknowledged in the source, as Pub/Sub does (retained for Seek like any ack, also on replay).
    this.ackOne(sub, m.id);
    this.appendQuiet({ type: REC.ACK, sub: sub.name, ids: [m.id] });
    for (const t of touched) this.scheduleDispatch(t);
  }

  private wakeAt(sub: Subscription, at: number): void {
    if (this.closed || at >= sub.timerAt) return;
    if (sub.timer) clearTimeout(sub.timer);
    sub.timerAt = at;
    sub.timer = setTimeout(() => this.wake(sub), Math.max(0, at - Date.now()));
    sub.timer.unref();
  }

  /** Expires leases and ends backoffs that are due, then re-arms the timer for the next one. */
  private wake(sub: Subscription): void {
    sub.timer = undefined;
    sub.timerAt = Number.POSITIVE_INFINITY;
    if (this.subs.get(sub.name) !== sub || this.closed) return;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    const expired: SubMsg[] = [];
    for (const sm of sub.leased) {
      if (sm.leaseUntil <= now) expired.push(sm);
      else if (sm.leaseUntil < next) next = sm.leaseUntil;
    }
    for (const sm of expired) if (sm.state === LEASED) this.release(sub, sm, now);
    const due: SubMsg[] = [];
    for (const sm of sub.delayed) {
      if (sm.availableAt <= now) due.push(sm);
      else if (sm.availableAt < next) next = sm.availableAt;
    }
    for (const sm of due) {
      sub.delayed.delete(sm);
      this.makeAvailable(sub, sm, 0, true);
      if (sm.key) this.queueKey(sub, sm.key);
    }
    // Releases above may have armed a timer already; keep the earliest.
    if (next < Number.POSITIVE_INFINITY) this.wakeAt(sub, next);
    this.scheduleDispatch(sub);
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

  /** Counts for tests and diagnostics. */
  stats(name: string): { unacked: number; leased: number; delayed: number } {
    const sub = this.getSubscription(name);
    return { unacked: sub.msgs.size, leased: sub.leased.size, delayed: sub.delayed.size };
  }

  get dataDir(): string {
    return this.opts.dataDir;
  }
}

function tooSmallThrow(): never {
  throw tooSmall('message_count', 0, 1, 'messages');
}

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
