/**
 * Pub/Sub's gRPC surface, from the protos shipped in @google-cloud/pubsub. Handlers translate
 * proto objects to the engine's canonical (REST JSON) shapes and back; every handler is wrapped
 * so a caller's mistake is INVALID_ARGUMENT / NOT_FOUND / ALREADY_EXISTS, never UNKNOWN (which
 * the client would retry for ten minutes, docs/google-wire.md §2).
 *
 * Longer than ~600 lines because it is one concern: the handler table and the proto⇄canonical
 * translations it calls change together, field by field, with the protos; the streaming pull
 * consumer and the HTTP/2 windows are the rest of that same surface. The hot messages' bytes are
 * in wire.ts, the semantics in engine.ts.
 */
import { EventEmitter } from 'node:events';
import type { ServerHttp2Session } from 'node:http2';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { localPortInterceptor } from '@eventbus/emulator-common/iam-enforce.ts';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { PubSubAccess } from './access.ts';
import type { SnapshotResource } from './codec.ts';
import { type Engine, pullHoldMs } from './engine.ts';
import { ApiError, invalid, STATUSES, toApiError } from './errors.ts';
import type { IamPolicy } from './iam.ts';
import type { AckFailures } from './leasing.ts';
import {
  type CloudStorageConfig,
  durationMs,
  exportConfigIn,
  formatDuration,
  ingestionSettings,
  type PushConfig,
  type SubscriptionInput,
  type SubscriptionResource,
  type TopicInput,
  type TopicResource,
} from './resources.ts';
import {
  checkDefinition,
  type SchemaRevision,
  type SchemaSettings,
  type SchemaType,
  schemaType,
  viewOf,
} from './schemas.ts';
import { exactlyOnceAckError } from './status-details.ts';
import type { Consumer, Subscription } from './subscription.ts';
import type { Delivery, StoredMessage } from './types.ts';
import {
  type DecodedPublish,
  decodePublishRequest,
  encodePublishResponse,
  encodeStreamingPullResponse,
} from './wire.ts';

/**
 * Requests up to this size reach our handlers, which judge the 10 MB limits themselves
 * (docs/google-wire.md §7). Well above 10 MB on purpose: grpc-js answers a larger message with
 * RESOURCE_EXHAUSTED, which Google's clients retry silently until their deadline, so a 12 MB
 * publish would hang a producer for minutes instead of failing at once with INVALID_ARGUMENT.
 */
export const GRPC_MAX_MESSAGE = 64 * 1024 * 1024;

// Proto objects are dynamic (loaded at run time); these interfaces name the fields we read.
interface ProtoDuration {
  seconds: string | number;
  nanos: number;
}
type Obj = Record<string, unknown>;

function protoDir(): { pubsub: string; gax: string } {
  const require = createRequire(import.meta.url);
  const pubsubMain = require.resolve('@google-cloud/pubsub');
  const pubsubRoot = join(dirname(pubsubMain), '..', '..');
  const gaxMain = createRequire(pubsubMain).resolve('google-gax');
  return { pubsub: join(pubsubRoot, 'build', 'protos'), gax: join(dirname(gaxMain), '..', 'protos') };
}

interface ServiceDefinitions {
  publisher: grpc.ServiceDefinition;
  subscriber: grpc.ServiceDefinition;
  schemas: grpc.ServiceDefinition;
  iam: grpc.ServiceDefinition;
}

let cached: ServiceDefinitions | undefined;

function loadServices(): ServiceDefinitions {
  if (cached) return cached;
  const dirs = protoDir();
  const def = protoLoader.loadSync(['google/pubsub/v1/pubsub.proto', 'google/iam/v1/iam_policy.proto'], {
    includeDirs: [dirs.pubsub, dirs.gax],
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    google: {
      pubsub: { v1: Record<string, { service: grpc.ServiceDefinition }> };
      iam: { v1: Record<string, { service: grpc.ServiceDefinition }> };
    };
  };
  const v1 = pkg.google.pubsub.v1;
  const publisher = { ...(v1['Publisher'] as { service: grpc.ServiceDefinition }).service };
  const subscriber = { ...(v1['Subscriber'] as { service: grpc.ServiceDefinition }).service };
  // The hot paths use the hand-written codecs of wire.ts.
  const publish = publisher['Publish'] as grpc.MethodDefinition<unknown, unknown>;
  publisher['Publish'] = {
    ...publish,
    requestDeserialize: decodePublishRequest,
    responseSerialize: (res: unknown) => encodePublishResponse(res as { messageIds: string[] }),
  };
  const pull = subscriber['StreamingPull'] as grpc.MethodDefinition<unknown, unknown>;
  subscriber['StreamingPull'] = {
    ...pull,
    responseSerialize: (res: unknown) =>
      Buffer.isBuffer((res as Obj)['encoded'])
        ? ((res as Obj)['encoded'] as Buffer)
        : pull.responseSerialize(res),
  };
  const schemas = (v1['SchemaService'] as { service: grpc.ServiceDefinition }).service;
  const iam = (pkg.google.iam.v1['IAMPolicy'] as { service: grpc.ServiceDefinition }).service;
  cached = { publisher, subscriber, schemas, iam };
  return cached;
}

// ---------- conversions ----------

const dur = (d: unknown): string | undefined => {
  if (!d || typeof d !== 'object') return undefined;
  const p = d as ProtoDuration;
  return formatDuration(Number(p.seconds), p.nanos ?? 0);
};

function toProtoDuration(text: string | undefined): ProtoDuration | null {
  if (!text) return null;
  const ms = durationMs(text) ?? 0;
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: Math.round((ms - seconds * 1000) * 1e6) };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const map = (v: unknown): Record<string, string> | undefined =>
  v && typeof v === 'object' && Object.keys(v).length > 0 ? (v as Record<string, string>) : undefined;

function pushConfigIn(v: unknown): PushConfig | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const p = v as Obj;
  const out: PushConfig = {};
  const endpoint = str(p['pushEndpoint']);
  if (endpoint) out.pushEndpoint = endpoint;
  const attributes = map(p['attributes']);
  if (attributes) out.attributes = attributes;
  const oidc = p['oidcToken'] as Obj | null | undefined;
  if (oidc) {
    out.oidcToken = {
      serviceAccountEmail: String(oidc['serviceAccountEmail'] ?? ''),
      audience: String(oidc['audience'] ?? ''),
    };
  }
  const noWrapper = p['noWrapper'] as Obj | null | undefined;
  if (noWrapper) out.noWrapper = { writeMetadata: Boolean(noWrapper['writeMetadata']) };
  return out;
}

/** Fields of a topic the emulator cannot honour: refused, never silently dropped. */
function refuseTopicFeatures(t: Obj): void {
  if (Array.isArray(t['messageTransforms']) && t['messageTransforms'].length > 0)
    throw invalid('message_transforms is not supported by this emulator.', 'message_transforms');
}

function refuseUnsupported(s: Obj): void {
  if (s['bigtableConfig'])
    throw invalid('bigtableConfig is not supported by this emulator.', 'bigtableConfig');
  if (Array.isArray(s['messageTransforms']) && s['messageTransforms'].length > 0) {
    throw invalid('message_transforms is not supported by this emulator.', 'message_transforms');
  }
}

function subscriptionIn(s: Obj): SubscriptionInput {
  refuseUnsupported(s);
  const dlp = s['deadLetterPolicy'] as Obj | null | undefined;
  const rp = s['retryPolicy'] as Obj | null | undefined;
  const exp = s['expirationPolicy'] as Obj | null | undefined;
  return {
    name: str(s['name']),
    topic: str(s['topic']),
    pushConfig: pushConfigIn(s['pushConfig']),
    ackDeadlineSeconds: Number(s['ackDeadlineSeconds'] ?? 0),
    retainAckedMessages: Boolean(s['retainAckedMessages']),
    messageRetentionDuration: dur(s['messageRetentionDuration']),
    labels: map(s['labels']),
    enableMessageOrdering: Boolean(s['enableMessageOrdering']),
    expirationPolicy: exp ? { ttl: dur(exp['ttl']) } : undefined,
    filter: typeof s['filter'] === 'string' ? s['filter'] : '',
    deadLetterPolicy: dlp
      ? {
          deadLetterTopic: str(dlp['deadLetterTopic']),
          maxDeliveryAttempts: Number(dlp['maxDeliveryAttempts'] ?? 0),
        }
      : undefined,
    retryPolicy: rp
      ? { minimumBackoff: dur(rp['minimumBackoff']), maximumBackoff: dur(rp['maximumBackoff']) }
      : undefined,
    detached: Boolean(s['detached']),
    enableExactlyOnceDelivery: Boolean(s['enableExactlyOnceDelivery']),
    bigqueryConfig: exportConfigIn(s['bigqueryConfig']),
    cloudStorageConfig: exportConfigIn(s['cloudStorageConfig']),
  };
}

/** A Cloud Storage config as the gRPC loader takes it (the duration as seconds and nanos). */
function cloudStorageOut(c: CloudStorageConfig | undefined): Obj | null {
  if (!c) return null;
  return { ...c, maxDuration: toProtoDuration(c.maxDuration ?? '300s'), state: c.state ?? 'ACTIVE' };
}

function subscriptionOut(s: SubscriptionResource): Obj {
  return {
    name: s.name,
    topic: s.topic,
    pushConfig: {
      pushEndpoint: s.pushConfig.pushEndpoint ?? '',
      attributes: s.pushConfig.attributes ?? {},
      oidcToken: s.pushConfig.oidcToken ?? null,
      ...(s.pushConfig.noWrapper ? { noWrapper: s.pushConfig.noWrapper } : {}),
    },
    ackDeadlineSeconds: s.ackDeadlineSeconds,
    retainAckedMessages: s.retainAckedMessages,
    messageRetentionDuration: toProtoDuration(s.messageRetentionDuration),
    labels: s.labels ?? {},
    enableMessageOrdering: s.enableMessageOrdering,
    expirationPolicy: s.expirationPolicy ? { ttl: toProtoDuration(s.expirationPolicy.ttl) } : null,
    filter: s.filter,
    deadLetterPolicy: s.deadLetterPolicy ?? null,
    retryPolicy: s.retryPolicy
      ? {
          minimumBackoff: toProtoDuration(s.retryPolicy.minimumBackoff),
          maximumBackoff: toProtoDuration(s.retryPolicy.maximumBackoff),
        }
      : null,
    detached: s.detached,
    enableExactlyOnceDelivery: s.enableExactlyOnceDelivery,
    bigqueryConfig: s.bigqueryConfig
      ? { ...s.bigqueryConfig, state: s.bigqueryConfig.state ?? 'ACTIVE' }
      : null,
    cloudStorageConfig: cloudStorageOut(s.cloudStorageConfig),
    state: s.state,
  };
}

function topicIn(t: Obj): TopicInput {
  refuseTopicFeatures(t);
  return {
    name: str(t['name']),
    labels: map(t['labels']),
    messageRetentionDuration: dur(t['messageRetentionDuration']),
    kmsKeyName: str(t['kmsKeyName']),
    ingestionDataSourceSettings: ingestionSettings(t['ingestionDataSourceSettings']),
    schemaSettings: schemaSettingsIn(t['schemaSettings']),
  };
}

function schemaSettingsIn(v: unknown): SchemaSettings | undefined {
  const o = v as Obj | null | undefined;
  const schema = str(o?.['schema']);
  if (!o || !schema) return undefined;
  const first = str(o['firstRevisionId']);
  const last = str(o['lastRevisionId']);
  return {
    schema,
    // Unspecified is JSON, as Pub/Sub takes it.
    encoding: o['encoding'] === 'BINARY' ? 'BINARY' : 'JSON',
    ...(first ? { firstRevisionId: first } : {}),
    ...(last ? { lastRevisionId: last } : {}),
  };
}

function schemaOut(rev: SchemaRevision): Obj {
  const ms = Date.parse(rev.revisionCreateTime);
  const seconds = Math.floor(ms / 1000);
  return {
    ...rev,
    revisionCreateTime: { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1e6 },
  };
}

/** Stored ingestion settings as the gRPC loader takes them (a timestamp as seconds and nanos). */
function ingestionOut(settings: Record<string, unknown> | undefined): Obj | null {
  if (!settings) return null;
  const storage = settings['cloudStorage'] as Obj | undefined;
  const time = storage?.['minimumObjectCreateTime'];
  if (typeof time !== 'string') return settings;
  const ms = Date.parse(time);
  const seconds = Math.floor(ms / 1000);
  return {
    ...settings,
    cloudStorage: {
      ...storage,
      minimumObjectCreateTime: { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1e6 },
    },
  };
}

function topicOut(t: TopicResource): Obj {
  return {
    name: t.name,
    labels: t.labels ?? {},
    messageRetentionDuration: toProtoDuration(t.messageRetentionDuration),
    kmsKeyName: t.kmsKeyName ?? '',
    ingestionDataSourceSettings: ingestionOut(t.ingestionDataSourceSettings),
    schemaSettings: t.schemaSettings ?? null,
    state: 'ACTIVE',
  };
}

function messageOut(m: StoredMessage): Obj {
  const seconds = Math.floor(m.publishTime / 1000);
  return {
    data: m.data,
    attributes: m.attributes,
    messageId: String(m.id),
    publishTime: { seconds: String(seconds), nanos: (m.publishTime - seconds * 1000) * 1_000_000 },
    orderingKey: m.orderingKey,
  };
}

const receivedOut = (d: Delivery): Obj => ({
  ackId: d.ackId,
  message: messageOut(d.message),
  deliveryAttempt: d.deliveryAttempt,
});

const paths = (mask: unknown): string[] =>
  mask && typeof mask === 'object' && Array.isArray((mask as Obj)['paths'])
    ? ((mask as Obj)['paths'] as string[])
    : [];

const timestampOut = (ms: number): Obj => {
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: Math.round((ms - seconds * 1000) * 1e6) };
};

const timestampIn = (t: unknown): number | undefined =>
  t && typeof t === 'object'
    ? Number((t as Obj)['seconds'] ?? 0) * 1000 + Math.floor(Number((t as Obj)['nanos'] ?? 0) / 1e6)
    : undefined;

const snapshotOut = (s: SnapshotResource): Obj => ({
  name: s.name,
  topic: s.topic,
  expireTime: timestampOut(s.expireTime),
  labels: s.labels ?? {},
});

const policyOut = (p: IamPolicy): Obj => ({
  version: p.version,
  bindings: p.bindings.map((b) => ({ condition: null, ...(b as Obj) })),
  etag: Buffer.from(p.etag, 'base64'),
});

/** Exactly-once failures of an ack or modack answer as Pub/Sub answers them (per ack id). */
function settle(failures: AckFailures): Obj {
  if (failures.size > 0) throw exactlyOnceAckError(failures);
  return {};
}

/** A schema from a request: its type and definition (the name comes from the request). */
function schemaIn(v: unknown): { type: SchemaType; definition: string } {
  const o = (v ?? {}) as Obj;
  return { type: schemaType(o['type']), definition: String(o['definition'] ?? '') };
}

// ---------- handlers ----------

type UnaryCall = grpc.ServerUnaryCall<Obj, unknown>;
type Unary = (request: Obj, call: UnaryCall) => Promise<unknown> | unknown;

/** A failure as grpc-js sends it: the status, the message, and any trailers the error carries. */
function grpcError(err: unknown): Partial<grpc.StatusObject> {
  const e = toApiError(err);
  const metadata = (err as { grpcMetadata?: grpc.Metadata }).grpcMetadata;
  return { code: STATUSES[e.status].grpc, details: e.message, ...(metadata ? { metadata } : {}) };
}

function unary(fn: Unary): grpc.handleUnaryCall<Obj, unknown> {
  return (call, callback) => {
    Promise.resolve()
      .then(() => fn(call.request, call))
      .then(
        (res) => callback(null, res),
        (err: unknown) => callback(grpcError(err)),
      );
  };
}

/**
 * With `--iam`, each unary handler of a service runs once its caller holds what the RPC needs
 * (access.ts NEEDS); StreamingPull checks its first request itself. Without, the handlers are
 * returned as they are.
 */
function guarded(
  access: PubSubAccess | undefined,
  handlers: grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  if (!access) return handlers;
  const out: grpc.UntypedServiceImplementation = {};
  for (const [rpc, handler] of Object.entries(handlers)) {
    if (rpc === 'StreamingPull') {
      out[rpc] = handler;
      continue;
    }
    const run = handler as grpc.handleUnaryCall<Obj, unknown>;
    out[rpc] = ((call, callback) => {
      try {
        access.authorize(access.callerOfCall(call), rpc, call.request);
      } catch (err) {
        callback(grpcError(err));
        return;
      }
      run(call, callback);
    }) satisfies grpc.handleUnaryCall<Obj, unknown>;
  }
  return out;
}

/** One StreamingPull stream as a consumer of its subscription. */
class StreamConsumer implements Consumer {
  readonly maxMessages: number;
  readonly maxBytes: number;
  outstanding = 0;
  outstandingBytes = 0;
  ackDeadlineSeconds: number;
  private readonly call: grpc.ServerDuplexStream<Obj, unknown>;
  private readonly properties: { exactlyOnce: boolean; ordering: boolean };

  constructor(call: grpc.ServerDuplexStream<Obj, unknown>, first: Obj, sub: Subscription) {
    this.call = call;
    this.maxMessages = Number(first['maxOutstandingMessages'] ?? 0) || 1000;
    this.maxBytes = Number(first['maxOutstandingBytes'] ?? 0) || 0;
    this.ackDeadlineSeconds =
      Number(first['streamAckDeadlineSeconds'] ?? 0) || sub.resource.ackDeadlineSeconds;
    this.properties = {
      exactlyOnce: sub.resource.enableExactlyOnceDelivery,
      ordering: sub.resource.enableMessageOrdering,
    };
  }

  leaseMs(): number {
    return this.ackDeadlineSeconds * 1000;
  }

  deliver(batch: Delivery[]): void {
    this.call.write({ encoded: encodeStreamingPullResponse(batch, this.properties) });
  }
}

function streamingPull(
  engine: Engine,
  streams: Set<grpc.ServerDuplexStream<Obj, unknown>>,
  access: PubSubAccess | undefined,
) {
  return (call: grpc.ServerDuplexStream<Obj, unknown>): void => {
    streams.add(call);
    let sub: Subscription | undefined;
    let consumer: StreamConsumer | undefined;
    let ended = false;
    const finish = (err?: unknown): void => {
      if (ended) return;
      ended = true;
      streams.delete(call);
      if (sub && consumer) engine.detach(sub, consumer);
      if (err) {
        call.emit('error', grpcError(err));
      } else {
        call.end();
      }
    };
    call.on('data', (req: Obj) => {
      try {
        if (!consumer) {
          // Checked once, when the stream opens: on the subscription its first request names.
          if (access) access.authorize(access.callerOfCall(call), 'StreamingPull', req);
          sub = engine.getSubscription(String(req['subscription'] ?? ''));
          engine.checkAttached(sub);
          const seconds = Number(req['streamAckDeadlineSeconds'] ?? 0);
          if (seconds < 10 || seconds > 600) {
            throw invalid(
              `Invalid stream ack deadline: ${seconds} seconds (10 to 600 allowed).`,
              'stream_ack_deadline_seconds',
            );
          }
          consumer = new StreamConsumer(call, req, sub);
          engine.attach(sub, consumer);
        } else if (Number(req['streamAckDeadlineSeconds'] ?? 0) > 0) {
          consumer.ackDeadlineSeconds = Math.min(600, Math.max(10, Number(req['streamAckDeadlineSeconds'])));
        }
        const s = sub as Subscription;
        const ackIds = (req['ackIds'] as string[] | undefined) ?? [];
        if (ackIds.length > 0) engine.acknowledge(s.name, ackIds).catch(() => undefined);
        const modIds = (req['modifyDeadlineAckIds'] as string[] | undefined) ?? [];
        const modSecs = (req['modifyDeadlineSeconds'] as number[] | undefined) ?? [];
        for (let i = 0; i < modIds.length; i++) {
          engine.modifyAckDeadline(s.name, [modIds[i] as string], modSecs[i] ?? 0);
        }
      } catch (err) {
        finish(err);
      }
    });
    call.on('end', () => finish());
    call.on('cancelled', () => finish());
    call.on('error', () => finish());
  };
}

/**
 * HTTP/2 receive windows the emulator advertises: per stream (SETTINGS_INITIAL_WINDOW_SIZE) and
 * per connection. HTTP/2's default is 64 KiB for both, so a 1000-message Publish (~250 KB) went
 * out in four window-sized pieces, each waiting for a WINDOW_UPDATE that this process only sends
 * between two event-loop tasks: while it decoded one call, the client's next call stalled, and
 * the client and the emulator took turns instead of working at the same time. Node reads the
 * bytes as they arrive (grpc-js buffers a whole message before our handler runs, up to
 * GRPC_MAX_MESSAGE), so wider windows change when bytes arrive, not how much is held.
 */
export const STREAM_WINDOW = 4 * 1024 * 1024;
export const CONNECTION_WINDOW = 16 * 1024 * 1024;

function widenWindows(session: ServerHttp2Session): void {
  try {
    session.settings({ initialWindowSize: STREAM_WINDOW });
    session.setLocalWindowSize(CONNECTION_WINDOW);
  } catch {
    // A session closed before its first tick: nothing to widen.
  }
}

/**
 * Applies the wider windows to every HTTP/2 session of `server`. grpc-js has no server option
 * for them (its 'grpc-node.flow_control_window' is read by the client only) and keeps its HTTP/2
 * servers (one per connection injector) in a private map; this reads that map. Returns false
 * when it is not there (a grpc-js change): the emulator then works as before, only slower, and
 * emulators/pubsub/test/wire.test.ts fails on the advertised window size.
 */
export function widenFlowControl(server: grpc.Server): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return false;
  let found = false;
  for (const h2 of servers.keys()) {
    if (!(h2 instanceof EventEmitter)) continue;
    h2.on('session', widenWindows);
    found = true;
  }
  return found;
}

export interface GrpcHandle {
  readonly server: grpc.Server;
  /** Ends every open StreamingPull call (on close). */
  endStreams(): void;
}

/**
 * Builds the gRPC server (not bound to a port: sockets are injected by the shared listener);
 * with `access`, every call is authorized first.
 */
export function createGrpcServer(engine: Engine, access?: PubSubAccess): GrpcHandle {
  const { publisher, subscriber, schemas, iam } = loadServices();
  const server = new grpc.Server({
    // Who a call is, on an identity port: known by the local port it came in on.
    interceptors: [localPortInterceptor],
    'grpc.max_receive_message_length': GRPC_MAX_MESSAGE,
    'grpc.max_send_message_length': GRPC_MAX_MESSAGE,
    // Channelz (grpc-js's call and socket statistics, on by default) counts and timestamps
    // every call and message for an introspection service the emulator does not serve.
    'grpc.enable_channelz': 0,
  });
  const streams = new Set<grpc.ServerDuplexStream<Obj, unknown>>();
  const add = (service: grpc.ServiceDefinition, handlers: grpc.UntypedServiceImplementation): void =>
    server.addService(service, guarded(access, handlers));

  add(publisher, {
    CreateTopic: unary(async (t) => topicOut(await engine.createTopic(topicIn(t), String(t['name'] ?? '')))),
    UpdateTopic: unary(async (r) => {
      const t = (r['topic'] ?? {}) as Obj;
      return topicOut(await engine.updateTopic(topicIn(t), String(t['name'] ?? ''), paths(r['updateMask'])));
    }),
    Publish: unary(async (r) => {
      // requestDeserialize is decodePublishRequest: the request read, its messages decoded on demand.
      return { messageIds: await engine.publishRequest(r as unknown as DecodedPublish) };
    }),
    GetTopic: unary((r) => topicOut(engine.getTopic(String(r['topic'] ?? '')))),
    ListTopics: unary((r) => {
      const all = engine.listTopics(projectOf(r['project']));
      const p = page(all, r);
      return { topics: p.items.map(topicOut), nextPageToken: p.next };
    }),
    ListTopicSubscriptions: unary((r) => {
      const p = page(engine.listTopicSubscriptions(String(r['topic'] ?? '')), r);
      return { subscriptions: p.items, nextPageToken: p.next };
    }),
    DeleteTopic: unary(async (r) => {
      await engine.deleteTopic(String(r['topic'] ?? ''));
      return {};
    }),
    DetachSubscription: unary(async (r) => {
      await engine.detachSubscription(String(r['subscription'] ?? ''));
      return {};
    }),
    ListTopicSnapshots: unary((r) => {
      const topic = String(r['topic'] ?? '');
      engine.getTopic(topic);
      const project = topic.split('/')[1] ?? '';
      const all = engine.listSnapshots(project).filter((s) => s.topic === topic);
      const p = page(all, r);
      return { snapshots: p.items.map((s) => s.name), nextPageToken: p.next };
    }),
  });

  add(subscriber, {
    CreateSubscription: unary(async (s) =>
      subscriptionOut(await engine.createSubscription(subscriptionIn(s), String(s['name'] ?? ''))),
    ),
    GetSubscription: unary((r) =>
      subscriptionOut(engine.getSubscription(String(r['subscription'] ?? '')).resource),
    ),
    UpdateSubscription: unary(async (r) => {
      const s = (r['subscription'] ?? {}) as Obj;
      return subscriptionOut(
        await engine.updateSubscription(subscriptionIn(s), String(s['name'] ?? ''), paths(r['updateMask'])),
      );
    }),
    ListSubscriptions: unary((r) => {
      const p = page(engine.listSubscriptions(projectOf(r['project'])), r);
      return { subscriptions: p.items.map(subscriptionOut), nextPageToken: p.next };
    }),
    DeleteSubscription: unary(async (r) => {
      await engine.deleteSubscription(String(r['subscription'] ?? ''));
      return {};
    }),
    ModifyAckDeadline: unary((r) =>
      settle(
        engine.modifyAckDeadline(
          String(r['subscription'] ?? ''),
          (r['ackIds'] as string[] | undefined) ?? [],
          Number(r['ackDeadlineSeconds'] ?? 0),
        ),
      ),
    ),
    Acknowledge: unary(async (r) =>
      settle(
        await engine.acknowledge(
          String(r['subscription'] ?? ''),
          (r['ackIds'] as string[] | undefined) ?? [],
        ),
      ),
    ),
    Pull: unary(async (r, call) => {
      // Held up to the call's deadline, as Pub/Sub may (engine.ts, pullHoldMs); a caller that
      // gives up (its deadline, a cancel) takes nothing.
      const deadline = call.getDeadline();
      const at = deadline instanceof Date ? deadline.getTime() : deadline;
      const left = new AbortController();
      call.once('cancelled', () => left.abort());
      const deliveries = await engine.pull(
        String(r['subscription'] ?? ''),
        Number(r['maxMessages'] ?? 0),
        r['returnImmediately'] !== true,
        pullHoldMs(Number.isFinite(at) ? at - Date.now() : undefined),
        left.signal,
      );
      return { receivedMessages: deliveries.map(receivedOut) };
    }),
    StreamingPull: streamingPull(engine, streams, access),
    ModifyPushConfig: unary(async (r) => {
      await engine.modifyPushConfig(String(r['subscription'] ?? ''), pushConfigIn(r['pushConfig']) ?? {});
      return {};
    }),
    CreateSnapshot: unary(async (r) =>
      snapshotOut(
        await engine.createSnapshot(
          String(r['name'] ?? ''),
          String(r['subscription'] ?? ''),
          map(r['labels']),
        ),
      ),
    ),
    GetSnapshot: unary((r) => snapshotOut(engine.getSnapshot(String(r['snapshot'] ?? '')).resource)),
    ListSnapshots: unary((r) => {
      const p = page(engine.listSnapshots(projectOf(r['project'])), r);
      return { snapshots: p.items.map(snapshotOut), nextPageToken: p.next };
    }),
    UpdateSnapshot: unary(async (r) => {
      const s = (r['snapshot'] ?? {}) as Obj;
      return snapshotOut(
        await engine.updateSnapshot(
          String(s['name'] ?? ''),
          { labels: map(s['labels']), expireTime: timestampIn(s['expireTime']) },
          paths(r['updateMask']),
        ),
      );
    }),
    DeleteSnapshot: unary(async (r) => {
      await engine.deleteSnapshot(String(r['snapshot'] ?? ''));
      return {};
    }),
    Seek: unary(async (r) => {
      const snapshot = r['target'] === 'snapshot' ? String(r['snapshot'] ?? '') : undefined;
      const time = r['target'] === 'time' ? timestampIn(r['time']) : undefined;
      await engine.seek(String(r['subscription'] ?? ''), { snapshot, time });
      return {};
    }),
  });

  // Schemas and their revisions (definitions checked for shape; messages are not validated).
  add(schemas, {
    CreateSchema: unary(async (r) => {
      const project = projectOf(r['parent']);
      const id = str(r['schemaId']);
      if (!id) throw invalid('schema_id is required.', 'schema_id');
      const { type, definition } = schemaIn(r['schema']);
      return schemaOut(await engine.createSchema(`projects/${project}/schemas/${id}`, type, definition));
    }),
    GetSchema: unary((r) => schemaOut(viewOf(engine.getSchema(String(r['name'] ?? '')), r['view'], true))),
    ListSchemas: unary((r) => {
      const p = page(engine.listSchemas(projectOf(r['parent'])), r);
      return { schemas: p.items.map((s) => schemaOut(viewOf(s, r['view'], false))), nextPageToken: p.next };
    }),
    ListSchemaRevisions: unary((r) => {
      const p = page(engine.listSchemaRevisions(String(r['name'] ?? '')), r);
      return { schemas: p.items.map((s) => schemaOut(viewOf(s, r['view'], true))), nextPageToken: p.next };
    }),
    CommitSchema: unary(async (r) => {
      const { type, definition } = schemaIn(r['schema']);
      return schemaOut(await engine.commitSchema(String(r['name'] ?? ''), type, definition));
    }),
    RollbackSchema: unary(async (r) =>
      schemaOut(await engine.rollbackSchema(String(r['name'] ?? ''), String(r['revisionId'] ?? ''))),
    ),
    DeleteSchemaRevision: unary(async (r) =>
      schemaOut(await engine.deleteSchemaRevision(String(r['name'] ?? ''), str(r['revisionId']))),
    ),
    DeleteSchema: unary(async (r) => {
      await engine.deleteSchema(String(r['name'] ?? ''));
      return {};
    }),
    ValidateSchema: unary((r) => {
      projectOf(r['parent']);
      const { type, definition } = schemaIn(r['schema']);
      checkDefinition(type, definition);
      return {};
    }),
    ValidateMessage: unary(() => {
      throw new ApiError('UNIMPLEMENTED', 'Validating a message against a schema is not emulated.');
    }),
  });

  // IAM policies are kept and returned; with `--iam` they grant with the access file's (iam.ts):
  // testIamPermissions answers every permission asked about, or with `--iam` those held.
  add(iam, {
    GetIamPolicy: unary((r) => policyOut(engine.getIamPolicy(String(r['resource'] ?? '')))),
    SetIamPolicy: unary(async (r) => {
      const policy = (r['policy'] ?? {}) as Obj;
      return policyOut(
        await engine.setIamPolicy(String(r['resource'] ?? ''), {
          version: Number(policy['version'] ?? 0),
          bindings: ((policy['bindings'] as Obj[] | undefined) ?? []).map((b) => ({
            role: String(b['role'] ?? ''),
            members: (b['members'] as string[] | undefined) ?? [],
            ...(b['condition'] ? { condition: b['condition'] } : {}),
          })),
        }),
      );
    }),
    TestIamPermissions: unary((r, call) => {
      const resource = String(r['resource'] ?? '');
      engine.getIamPolicy(resource);
      const asked = (r['permissions'] as string[] | undefined) ?? [];
      return { permissions: access ? access.held(access.callerOfCall(call), resource, asked) : asked };
    }),
  });

  return {
    server,
    endStreams: () => {
      for (const call of streams) call.end();
      streams.clear();
    },
  };
}

function projectOf(v: unknown): string {
  const s = String(v ?? '');
  if (!/^projects\/[^/]+$/.test(s)) throw invalid(`Invalid [projects] name: (name=${s})`, 'project');
  return s.slice('projects/'.length);
}

function page<T>(items: T[], r: Obj): { items: T[]; next: string } {
  const size = Number(r['pageSize'] ?? 0) || 100;
  const start = Number(r['pageToken'] ?? 0) || 0;
  const slice = items.slice(start, start + size);
  return { items: slice, next: start + size < items.length ? String(start + size) : '' };
}
