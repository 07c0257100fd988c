/**
 * The emulator's state and delivery semantics, independent of the wire (REST or gRPC): the one
 * face the wire handlers, the push and export workers and the tests call. It holds the state
 * (engine-state.ts: the maps, the log, and the appliers replay shares) and hands each operation
 * to the module that owns it: topics-and-subscriptions.ts, publish.ts, leasing.ts (leases, acks,
 * retries, dead letters, ordering), snapshots.ts (snapshots and Seek), schema-registry.ts, iam.ts.
 * The message types are in types.ts, the log records' encoding in codec.ts, the wire encodings in
 * wire.ts.
 */
import type { SnapshotResource } from './codec.ts';
import { type EngineOptions, EngineState, type SnapshotState } from './engine-state.ts';
import * as iam from './iam.ts';
import * as leasing from './leasing.ts';
import { checkPublish, publishBatch } from './publish.ts';
import type {
  ExportState,
  SubscriptionInput,
  SubscriptionResource,
  TopicInput,
  TopicResource,
} from './resources.ts';
import * as registry from './schema-registry.ts';
import type { SchemaRevision, SchemaType } from './schemas.ts';
import * as snapshots from './snapshots.ts';
import type { Consumer, PushHooks, Subscription } from './subscription.ts';
import * as admin from './topics-and-subscriptions.ts';
import type { Delivery, PublishInput } from './types.ts';
import type { DecodedPublish } from './wire.ts';

export type { EngineOptions } from './engine-state.ts';

export class Engine {
  /** Validates a publish request against Google's limits (docs/google-wire.md §1). */
  static readonly checkPublish = checkPublish;
  private readonly s: EngineState;

  private constructor(s: EngineState) {
    this.s = s;
  }

  /** Opens the data directory: replays the log, compacts it, and returns a ready engine. */
  static async open(opts: EngineOptions): Promise<Engine> {
    return new Engine(await EngineState.open(opts));
  }

  close(): Promise<void> {
    return this.s.close();
  }

  get dataDir(): string {
    return this.s.opts.dataDir;
  }

  get subs(): ReadonlyMap<string, Subscription> {
    return this.s.subs;
  }

  get pushHooks(): PushHooks | undefined {
    return this.s.pushHooks;
  }

  set pushHooks(hooks: PushHooks | undefined) {
    this.s.pushHooks = hooks;
  }

  /** What creating or changing an export subscription checks first (set by exports.ts). */
  get exportCheck(): ((resource: SubscriptionResource) => Promise<void>) | undefined {
    return this.s.exportCheck;
  }

  set exportCheck(check: ((resource: SubscriptionResource) => Promise<void>) | undefined) {
    this.s.exportCheck = check;
  }

  /** Counts for tests and diagnostics. */
  stats(name: string): { unacked: number; leased: number; delayed: number } {
    const sub = this.s.getSubscription(name);
    return { unacked: sub.msgs.size, leased: sub.leased.size, delayed: sub.delayed.size };
  }

  // ---------- topics ----------

  getTopic(name: string): TopicResource {
    return this.s.getTopic(name);
  }

  createTopic(input: TopicInput, name: string): Promise<TopicResource> {
    return admin.createTopic(this.s, input, name);
  }

  updateTopic(input: TopicInput, name: string, paths: readonly string[]): Promise<TopicResource> {
    return admin.updateTopic(this.s, input, name, paths);
  }

  deleteTopic(name: string): Promise<void> {
    return admin.deleteTopic(this.s, name);
  }

  listTopics(project: string): TopicResource[] {
    return admin.listTopics(this.s, project);
  }

  listTopicSubscriptions(topicName: string): string[] {
    return admin.listTopicSubscriptions(this.s, topicName);
  }

  // ---------- subscriptions ----------

  getSubscription(name: string): Subscription {
    return this.s.getSubscription(name);
  }

  createSubscription(input: SubscriptionInput, name: string): Promise<SubscriptionResource> {
    return admin.createSubscription(this.s, input, name);
  }

  updateSubscription(
    input: SubscriptionInput,
    name: string,
    paths: readonly string[],
  ): Promise<SubscriptionResource> {
    return admin.updateSubscription(this.s, input, name, paths);
  }

  async modifyPushConfig(name: string, input: SubscriptionInput['pushConfig']): Promise<void> {
    await admin.updateSubscription(this.s, { pushConfig: input ?? {} }, name, ['pushConfig']);
  }

  setExportState(sub: Subscription, state: ExportState): void {
    admin.setExportState(sub, state);
  }

  deleteSubscription(name: string): Promise<void> {
    return admin.deleteSubscription(this.s, name);
  }

  listSubscriptions(project: string): SubscriptionResource[] {
    return admin.listSubscriptions(this.s, project);
  }

  detachSubscription(name: string): Promise<void> {
    return admin.detachSubscription(this.s, name);
  }

  checkAttached(sub: Subscription): void {
    admin.checkAttached(sub);
  }

  // ---------- publish ----------

  /**
   * Publishes; resolves with the message ids once the messages are durable. `raw`, when given,
   * is the PublishRequest these inputs were decoded from (gRPC): it is logged as received.
   */
  publish(topicName: string, inputs: readonly PublishInput[], raw?: Buffer): Promise<string[]> {
    return publishBatch(this.s, topicName, inputs.length, false, () => inputs, raw);
  }

  /** Publishes a gRPC PublishRequest, logged as the bytes it arrived as. */
  publishRequest(req: DecodedPublish): Promise<string[]> {
    return publishBatch(this.s, req.topic, req.count, req.withinLimits, () => req.messages, req.raw);
  }

  // ---------- delivery ----------

  attach(sub: Subscription, consumer: Consumer): void {
    leasing.attach(this.s, sub, consumer);
  }

  detach(sub: Subscription, consumer: Consumer): void {
    leasing.detach(sub, consumer);
  }

  scheduleDispatch(sub: Subscription): void {
    leasing.scheduleDispatch(this.s, sub);
  }

  /**
   * Unary pull; with `wait`, waits up to `waitMs` when nothing is available at once (the
   * surfaces pass pullHoldMs of the call's deadline), answering nothing once `signal` aborts.
   */
  pull(
    name: string,
    maxMessages: number,
    wait: boolean,
    waitMs = 500,
    signal?: AbortSignal,
  ): Promise<Delivery[]> {
    const sub = this.s.getSubscription(name);
    admin.checkAttached(sub);
    return leasing.pull(this.s, sub, maxMessages, wait, waitMs, signal);
  }

  acknowledge(name: string, ackIds: readonly string[]): Promise<leasing.AckFailures> {
    return leasing.acknowledge(this.s, this.s.getSubscription(name), ackIds);
  }

  modifyAckDeadline(name: string, ackIds: readonly string[], seconds: number): leasing.AckFailures {
    return leasing.modifyAckDeadline(this.s, this.s.getSubscription(name), ackIds, seconds);
  }

  nack(sub: Subscription, ackId: string): void {
    leasing.nack(this.s, sub, ackId);
  }

  // ---------- snapshots and seek ----------

  getSnapshot(name: string): SnapshotState {
    return snapshots.getSnapshot(this.s, name);
  }

  createSnapshot(
    name: string,
    subscription: string,
    labels?: Record<string, string>,
  ): Promise<SnapshotResource> {
    return snapshots.createSnapshot(this.s, name, subscription, labels);
  }

  updateSnapshot(
    name: string,
    patch: { labels?: Record<string, string> | undefined; expireTime?: number | undefined },
    paths: readonly string[],
  ): Promise<SnapshotResource> {
    return snapshots.updateSnapshot(this.s, name, patch, paths);
  }

  deleteSnapshot(name: string): Promise<void> {
    return snapshots.deleteSnapshot(this.s, name);
  }

  listSnapshots(project: string): SnapshotResource[] {
    return snapshots.listSnapshots(this.s, project);
  }

  seek(name: string, target: { time?: number | undefined; snapshot?: string | undefined }): Promise<void> {
    return snapshots.seek(this.s, name, target);
  }

  // ---------- schemas ----------

  createSchema(name: string, type: SchemaType, definition: string): Promise<SchemaRevision> {
    return registry.createSchema(this.s, name, type, definition);
  }

  getSchema(nameWithRevision: string): SchemaRevision {
    return registry.getSchema(this.s, nameWithRevision);
  }

  listSchemas(project: string): SchemaRevision[] {
    return registry.listSchemas(this.s, project);
  }

  listSchemaRevisions(name: string): SchemaRevision[] {
    return registry.listSchemaRevisions(this.s, name);
  }

  commitSchema(name: string, type: SchemaType, definition: string): Promise<SchemaRevision> {
    return registry.commitSchema(this.s, name, type, definition);
  }

  rollbackSchema(name: string, revisionId: string): Promise<SchemaRevision> {
    return registry.rollbackSchema(this.s, name, revisionId);
  }

  deleteSchemaRevision(nameWithRevision: string, given?: string): Promise<SchemaRevision> {
    return registry.deleteSchemaRevision(this.s, nameWithRevision, given);
  }

  deleteSchema(name: string): Promise<void> {
    return registry.deleteSchema(this.s, name);
  }

  // ---------- IAM (stored and returned; with `--iam` they grant: iam.ts) ----------

  /** The policy set on `resource`, as IAM enforcement reads it (access.ts). */
  enforcedPolicy(resource: string): ReturnType<typeof iam.enforcedPolicy> {
    return iam.enforcedPolicy(this.s, resource);
  }

  getIamPolicy(resource: string): iam.IamPolicy {
    return iam.getIamPolicy(this.s, resource);
  }

  setIamPolicy(resource: string, policy: { version?: number; bindings?: unknown[] }): Promise<iam.IamPolicy> {
    return iam.setIamPolicy(this.s, resource, policy);
  }
}

/** The longest an empty pull is held, whatever its deadline (the client libraries' default Pull deadline). */
export const PULL_HOLD_LIMIT_MS = 60_000;
/** How long an empty pull with no deadline is held. */
export const PULL_HOLD_DEFAULT_MS = 10_000;

/**
 * How long an empty pull without `returnImmediately` is held: Pub/Sub "may wait (for a bounded
 * amount of time) until at least one message is available" (PullRequest.return_immediately), and
 * holds it up to the caller's deadline (a unary pull of an empty subscription ends in
 * DEADLINE_EXCEEDED: googleapis/java-pubsub#189). So does the emulator: until `deadlineMs` (ms
 * left, from gRPC's `grpc-timeout` or REST's `X-Server-Timeout`), at most PULL_HOLD_LIMIT_MS;
 * PULL_HOLD_DEFAULT_MS with none.
 */
export function pullHoldMs(deadlineMs: number | undefined): number {
  if (deadlineMs === undefined || !Number.isFinite(deadlineMs)) return PULL_HOLD_DEFAULT_MS;
  return Math.max(0, Math.min(deadlineMs, PULL_HOLD_LIMIT_MS));
}
