/**
 * Pub/Sub's REST surface (docs/google-wire.md §1): Google's paths and JSON, Google's error envelope.
 * Request bodies are checked against a small schema of the protos' JSON form, so unknown fields,
 * wrong types and bad base64 get Google's messages instead of being ignored. With `--iam`, each
 * route names the RPC it serves to `may` (access.ts), with a request of that RPC's shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PubSubAccess } from './access.ts';
import type { SnapshotResource } from './codec.ts';
import { type Engine, pullHoldMs } from './engine.ts';
import { ApiError, invalid, restErrorBody, STATUSES, toApiError, tooLarge } from './errors.ts';
import type { PushManager } from './push.ts';
import type { SubscriptionInput, SubscriptionResource, TopicInput } from './resources.ts';
import { viewOf } from './schemas.ts';
import type { Delivery, PublishInput, StoredMessage } from './types.ts';

type Kind =
  | 'string'
  | 'int'
  | 'bool'
  | 'bytes'
  | 'duration'
  | 'map'
  | 'mask'
  | 'any'
  | { readonly obj: Readonly<Record<string, Kind>> }
  | { readonly arr: Kind };

const obj = (fields: Record<string, Kind>): Kind => ({ obj: fields });

const PubsubMessageKind = obj({
  data: 'bytes',
  attributes: 'map',
  messageId: 'string',
  publishTime: 'string',
  orderingKey: 'string',
});
const TopicKind = obj({
  name: 'string',
  labels: 'map',
  messageStoragePolicy: 'any',
  kmsKeyName: 'string',
  schemaSettings: 'any',
  satisfiesPzs: 'bool',
  messageRetentionDuration: 'duration',
  state: 'string',
  ingestionDataSourceSettings: 'any',
  messageTransforms: 'any',
  tags: 'any',
});
const PushConfigKind = obj({
  pushEndpoint: 'string',
  attributes: 'map',
  oidcToken: obj({ serviceAccountEmail: 'string', audience: 'string' }),
  pubsubWrapper: 'any',
  noWrapper: 'any',
});
const SubscriptionKind = obj({
  name: 'string',
  topic: 'string',
  pushConfig: PushConfigKind,
  bigqueryConfig: 'any',
  cloudStorageConfig: 'any',
  bigtableConfig: 'any',
  ackDeadlineSeconds: 'int',
  retainAckedMessages: 'bool',
  messageRetentionDuration: 'duration',
  labels: 'map',
  enableMessageOrdering: 'bool',
  expirationPolicy: obj({ ttl: 'duration' }),
  filter: 'string',
  deadLetterPolicy: obj({ deadLetterTopic: 'string', maxDeliveryAttempts: 'int' }),
  retryPolicy: obj({ minimumBackoff: 'duration', maximumBackoff: 'duration' }),
  detached: 'bool',
  enableExactlyOnceDelivery: 'bool',
  topicMessageRetentionDuration: 'duration',
  state: 'string',
  analyticsHubSubscriptionInfo: 'any',
  messageTransforms: 'any',
  tags: 'any',
});
const PublishRequestKind = obj({ topic: 'string', messages: { arr: PubsubMessageKind } });
const TestIamPermissionsKind = obj({ permissions: { arr: 'string' } });
const UpdateTopicKind = obj({ topic: TopicKind, updateMask: 'mask' });
const UpdateSubscriptionKind = obj({ subscription: SubscriptionKind, updateMask: 'mask' });
const PullKind = obj({ subscription: 'string', returnImmediately: 'bool', maxMessages: 'int' });
const AckKind = obj({ subscription: 'string', ackIds: { arr: 'string' } });
const ModAckKind = obj({ subscription: 'string', ackIds: { arr: 'string' }, ackDeadlineSeconds: 'int' });
const ModPushKind = obj({ subscription: 'string', pushConfig: PushConfigKind });

const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (s: string): string => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

function badValue(path: string, type: string, value: unknown): ApiError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  return invalid(`Invalid value at '${path}' (${type}), ${shown}`, path);
}

/** Checks and normalises a JSON value against a kind; paths are Google's snake_case paths. */
function decode(kind: Kind, value: unknown, path: string): unknown {
  if (value === null || value === undefined) return undefined;
  if (kind === 'any') return value;
  if (kind === 'string' || kind === 'duration') {
    if (typeof value !== 'string') throw badValue(path, 'TYPE_STRING', value);
    return value;
  }
  if (kind === 'int') {
    const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n)) throw badValue(path, 'TYPE_INT32', value);
    return n;
  }
  if (kind === 'bool') {
    if (typeof value !== 'boolean') throw badValue(path, 'TYPE_BOOL', value);
    return value;
  }
  if (kind === 'bytes') {
    if (typeof value !== 'string' || !BASE64.test(value) || value.replace(/=+$/, '').length % 4 === 1) {
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      throw invalid(`Invalid value at '${path}' (TYPE_BYTES), Base64 decoding failed for "${shown}"`, path);
    }
    return Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  }
  if (kind === 'map') {
    if (typeof value !== 'object' || Array.isArray(value)) throw badValue(path, 'TYPE_MAP', value);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v !== 'string') throw badValue(`${path}[${k}]`, 'TYPE_STRING', v);
      out[k] = v;
    }
    return out;
  }
  if (kind === 'mask') {
    if (typeof value !== 'string') throw badValue(path, 'TYPE_STRING', value);
    return value
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
  }
  if ('arr' in kind) {
    if (!Array.isArray(value)) throw badValue(path, 'TYPE_MESSAGE', value);
    return value.map((v, i) => {
      // A null stands for "not set" in a field, but a list has no unset elements.
      if (v === null) {
        const at = `${path}[${i}]`;
        if (typeof kind.arr === 'object') {
          throw invalid(`Invalid JSON payload received. Expected an object at '${at}'.`, at);
        }
        throw badValue(at, kind.arr === 'int' ? 'TYPE_INT32' : 'TYPE_STRING', v);
      }
      return decode(kind.arr, v, `${path}[${i}]`);
    });
  }
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`Invalid JSON payload received. Expected an object at '${path || 'root'}'.`, path);
  }
  const out: Record<string, unknown> = {};
  for (const [rawKey, v] of Object.entries(value as Record<string, unknown>)) {
    const key = camel(rawKey);
    const sub = kind.obj[key];
    if (!sub) {
      const where = path ? ` at '${path}'` : '';
      throw new ApiError(
        'INVALID_ARGUMENT',
        `Invalid JSON payload received. Unknown name "${rawKey}"${where}: Cannot find field.`,
        [
          {
            field: path,
            description: `Invalid JSON payload received. Unknown name "${rawKey}"${where}: Cannot find field.`,
          },
        ],
      );
    }
    const decoded = decode(sub, v, path ? `${path}.${snake(key)}` : snake(key));
    if (decoded !== undefined) out[key] = decoded;
  }
  return out;
}

function refuseUnsupported(s: Record<string, unknown>): void {
  for (const f of ['bigtableConfig', 'messageTransforms']) {
    const v = s[f];
    if (v && (typeof v !== 'object' || Object.keys(v).length > 0)) {
      throw invalid(`${snake(f)} is not supported by this emulator.`, snake(f));
    }
  }
}

/** Fields of a topic the emulator cannot honour: refused, never silently dropped. */
function refuseTopicFeatures(t: Record<string, unknown>): void {
  refuseUnsupported({ messageTransforms: t['messageTransforms'] });
}

/** Subscription resource as Google's JSON prints it: default booleans and empty strings omitted. */
export function subscriptionJson(s: SubscriptionResource): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === false || v === '' || v === undefined) continue;
    out[k] = v;
  }
  // An export config reports its state (ACTIVE unless its writer found otherwise).
  if (s.bigqueryConfig) out['bigqueryConfig'] = { state: 'ACTIVE', ...s.bigqueryConfig };
  if (s.cloudStorageConfig) out['cloudStorageConfig'] = { state: 'ACTIVE', ...s.cloudStorageConfig };
  return out;
}

function messageJson(m: StoredMessage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (m.data.length > 0) out['data'] = m.data.toString('base64');
  if (Object.keys(m.attributes).length > 0) out['attributes'] = m.attributes;
  out['messageId'] = String(m.id);
  out['publishTime'] = new Date(m.publishTime).toISOString();
  if (m.orderingKey) out['orderingKey'] = m.orderingKey;
  return out;
}

function receivedJson(d: Delivery): Record<string, unknown> {
  const out: Record<string, unknown> = { ackId: d.ackId, message: messageJson(d.message) };
  if (d.deliveryAttempt > 0) out['deliveryAttempt'] = d.deliveryAttempt;
  return out;
}

const MAX_BODY = 16 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw tooLarge('request_size', size, MAX_BODY);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid(`Invalid JSON payload received. Unexpected token.\n${text.slice(0, 80)}\n^`);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function page<T>(items: T[], query: URLSearchParams): { items: T[]; next: string } {
  const size = Number(query.get('pageSize') ?? query.get('page_size') ?? 0) || 100;
  const start = Number(query.get('pageToken') ?? query.get('page_token') ?? 0) || 0;
  const slice = items.slice(start, start + size);
  return { items: slice, next: start + size < items.length ? String(start + size) : '' };
}

export interface RestContext {
  readonly engine: Engine;
  readonly push: PushManager;
  /** With `--iam`: who calls, and what each RPC needs. */
  readonly access?: PubSubAccess | undefined;
  isReady(): boolean;
}

/** Refuses the call unless its caller may make `rpc` with `request` (the gRPC request's shape). */
type May = (rpc: string, request: Record<string, unknown>) => void;
const ANYONE: May = () => undefined;

/** Handles one HTTP request; every failure becomes Google's error envelope. */
export async function handleRest(ctx: RestContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    if (url.pathname === '/' && method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('Ok\n');
      return;
    }
    if (url.pathname === '/health' && method === 'GET') {
      if (ctx.isReady()) send(res, 200, { status: 'ok' });
      else send(res, 503, { status: 'starting' });
      return;
    }
    if (url.pathname === '/oauth2/v1/certs' && method === 'GET') {
      send(res, 200, ctx.push.signer.certs());
      return;
    }
    const auth = req.headers.authorization;
    if (auth !== undefined && !/^Bearer \S+$/i.test(auth)) {
      throw new ApiError(
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
      );
    }
    const body = method === 'GET' || method === 'DELETE' ? Buffer.alloc(0) : await readBody(req);
    // After the body: a refused client still reads its answer rather than a reset connection.
    const access = ctx.access;
    const caller = access?.callerOfRequest(req);
    const may: May = access && caller ? (rpc, request) => access.authorize(caller, rpc, request) : ANYONE;
    const left = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) left.abort();
    };
    res.on('close', onClose);
    try {
      const result = await route(ctx.engine, method, url, body, may, {
        deadlineMs: serverTimeoutMs(req),
        signal: left.signal,
        held: (resource, permissions) =>
          access && caller ? access.held(caller, resource, permissions) : [...permissions],
      });
      send(res, 200, result);
    } finally {
      res.off('close', onClose);
    }
  } catch (err) {
    const e = toApiError(err);
    send(res, STATUSES[e.status].http, restErrorBody(e));
  }
}

function notFoundRoute(method: string, path: string): ApiError {
  return new ApiError('NOT_FOUND', `The requested URL ${path} (${method}) was not found on this server.`);
}

/** The RPC each `subscriptions/{s}:verb` route serves. */
const VERB_RPC: ReadonlyMap<string, string> = new Map([
  ['pull', 'Pull'],
  ['acknowledge', 'Acknowledge'],
  ['modifyAckDeadline', 'ModifyAckDeadline'],
  ['detach', 'DetachSubscription'],
  ['seek', 'Seek'],
  ['modifyPushConfig', 'ModifyPushConfig'],
]);

const SnapshotCreateKind = obj({ subscription: 'string', labels: 'map' });
const SnapshotKind = obj({ name: 'string', topic: 'string', expireTime: 'string', labels: 'map' });
const UpdateSnapshotKind = obj({ snapshot: SnapshotKind, updateMask: 'mask' });
const SeekKind = obj({ subscription: 'string', time: 'string', snapshot: 'string' });

/** A snapshot as Pub/Sub's JSON prints it (`expireTime` an RFC 3339 time). */
const snapshotJson = (s: SnapshotResource): Record<string, unknown> => ({
  name: s.name,
  topic: s.topic,
  expireTime: new Date(s.expireTime).toISOString(),
  ...(s.labels ? { labels: s.labels } : {}),
});

function rfc3339(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(String(value));
  if (Number.isNaN(ms))
    throw invalid(
      `Invalid value at '${field}' (type.googleapis.com/google.protobuf.Timestamp), "${String(value)}"`,
      field,
    );
  return ms;
}

/**
 * Snapshots (`/v1/projects/{p}/snapshots[/{s}]`) and schemas (`/v1/projects/{p}/schemas…`: listed
 * here, everything else served over gRPC only, and said so); undefined for other paths.
 */
async function routeSnapshotsAndSchemas(
  engine: Engine,
  method: string,
  path: string,
  input: (kind: Kind) => Record<string, unknown>,
  may: May,
): Promise<unknown> {
  const schemas = /^\/v1\/projects\/([^/:]+)\/schemas(?:[/:].*)?$/.exec(path);
  if (schemas) {
    if (method === 'GET' && path === `/v1/projects/${schemas[1]}/schemas`) {
      may('ListSchemas', { parent: `projects/${decodeURIComponent(schemas[1] as string)}` });
      const list = engine
        .listSchemas(decodeURIComponent(schemas[1] as string))
        .map((x) => viewOf(x, undefined, false));
      return list.length > 0 ? { schemas: list } : {};
    }
    throw new ApiError('UNIMPLEMENTED', 'Schemas are served over gRPC only by this emulator.');
  }
  const m = /^\/v1\/projects\/([^/:]+)\/snapshots(?:\/([^/:]+))?$/.exec(path);
  if (!m) return undefined;
  const project = decodeURIComponent(m[1] as string);
  if (m[2] === undefined) {
    if (method !== 'GET') throw notFoundRoute(method, path);
    may('ListSnapshots', { project: `projects/${project}` });
    const list = engine.listSnapshots(project).map(snapshotJson);
    return list.length > 0 ? { snapshots: list } : {};
  }
  const name = `projects/${project}/snapshots/${decodeURIComponent(m[2])}`;
  switch (method) {
    case 'GET':
      may('GetSnapshot', { snapshot: name });
      return snapshotJson(engine.getSnapshot(name).resource);
    case 'PUT': {
      const req = input(SnapshotCreateKind);
      may('CreateSnapshot', { name, subscription: req['subscription'] });
      return snapshotJson(
        await engine.createSnapshot(
          name,
          String(req['subscription'] ?? ''),
          req['labels'] as Record<string, string> | undefined,
        ),
      );
    }
    case 'PATCH': {
      may('UpdateSnapshot', { snapshot: { name } });
      const req = input(UpdateSnapshotKind);
      const snap = (req['snapshot'] ?? {}) as Record<string, unknown>;
      return snapshotJson(
        await engine.updateSnapshot(
          name,
          {
            labels: snap['labels'] as Record<string, string> | undefined,
            expireTime: rfc3339(snap['expireTime'], 'snapshot.expire_time'),
          },
          (req['updateMask'] as string[] | undefined) ?? [],
        ),
      );
    }
    case 'DELETE':
      may('DeleteSnapshot', { snapshot: name });
      await engine.deleteSnapshot(name);
      return {};
    default:
      throw notFoundRoute(method, path);
  }
}

/** What a handler knows of the HTTP call besides its body: its deadline and whether the caller left. */
interface RestCall {
  /** Milliseconds the caller waits (`X-Server-Timeout`, seconds), when it says. */
  readonly deadlineMs: number | undefined;
  /** Aborts when the connection closes before the answer. */
  readonly signal: AbortSignal;
  /** testIamPermissions: the permissions asked about that the caller holds on a resource. */
  readonly held: (resource: string, permissions: readonly string[]) => string[];
}

/** The caller's deadline from Google's `X-Server-Timeout` system parameter (seconds). */
function serverTimeoutMs(req: IncomingMessage): number | undefined {
  const seconds = Number(req.headers['x-server-timeout']);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

async function route(
  engine: Engine,
  method: string,
  url: URL,
  body: Buffer,
  may: May,
  call: RestCall,
): Promise<unknown> {
  const path = url.pathname;
  const other = await routeSnapshotsAndSchemas(
    engine,
    method,
    path,
    (kind) => decode(kind, parseJson(body) ?? {}, '') as Record<string, unknown>,
    may,
  );
  if (other !== undefined) return other;
  const m =
    /^\/v1\/projects\/([^/:]+)\/(topics|subscriptions)(?:\/([^/:]+)(?:\/(subscriptions))?)?(?::([A-Za-z]+))?$/.exec(
      path,
    );
  if (!m) throw notFoundRoute(method, path);
  const project = decodeURIComponent(m[1] as string);
  const collection = m[2] as 'topics' | 'subscriptions';
  const id = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
  const child = m[4];
  const verb = m[5];
  const name = id === undefined ? '' : `projects/${project}/${collection}/${id}`;
  // A JSON null body is an empty request (a null message is an unset one), not a missing object.
  const input = (kind: Kind): Record<string, unknown> =>
    decode(kind, parseJson(body) ?? {}, '') as Record<string, unknown>;

  if (collection === 'topics') {
    if (id === undefined) {
      if (method === 'GET' && !verb) {
        may('ListTopics', { project: `projects/${project}` });
        const p = page(engine.listTopics(project), url.searchParams);
        return p.next ? { topics: p.items, nextPageToken: p.next } : { topics: p.items };
      }
      throw notFoundRoute(method, path);
    }
    if (child) {
      if (method === 'GET' && !verb) {
        may('ListTopicSubscriptions', { topic: name });
        const p = page(engine.listTopicSubscriptions(name), url.searchParams);
        return p.next ? { subscriptions: p.items, nextPageToken: p.next } : { subscriptions: p.items };
      }
      throw notFoundRoute(method, path);
    }
    if (verb === 'publish' && method === 'POST') {
      may('Publish', { topic: name });
      const req = input(PublishRequestKind);
      const messages = (req['messages'] ?? []) as Record<string, unknown>[];
      const inputs: PublishInput[] = messages.map((msg) => ({
        data: (msg['data'] as Buffer | undefined) ?? Buffer.alloc(0),
        attributes: (msg['attributes'] as Record<string, string> | undefined) ?? {},
        orderingKey: (msg['orderingKey'] as string | undefined) ?? '',
      }));
      return { messageIds: await engine.publish(name, inputs) };
    }
    if (verb === 'testIamPermissions' && method === 'POST') {
      // As the gRPC surface: NOT_FOUND for a topic that does not exist, then what is held.
      const asked = (input(TestIamPermissionsKind)['permissions'] as string[] | undefined) ?? [];
      engine.getIamPolicy(name);
      const held = call.held(name, asked);
      return held.length > 0 ? { permissions: held } : {};
    }
    if (verb) throw notFoundRoute(method, path);
    switch (method) {
      case 'GET':
        may('GetTopic', { topic: name });
        return engine.getTopic(name);
      case 'PUT': {
        const topic = input(TopicKind);
        may('CreateTopic', { ...topic, name });
        refuseTopicFeatures(topic);
        return engine.createTopic(topic as TopicInput, name);
      }
      case 'PATCH': {
        const req = input(UpdateTopicKind);
        may('UpdateTopic', { topic: { ...(req['topic'] ?? {}), name } });
        return engine.updateTopic(
          (req['topic'] ?? {}) as TopicInput,
          name,
          (req['updateMask'] as string[] | undefined) ?? [],
        );
      }
      case 'DELETE':
        may('DeleteTopic', { topic: name });
        await engine.deleteTopic(name);
        return {};
      default:
        throw notFoundRoute(method, path);
    }
  }

  // subscriptions
  if (id === undefined || child) {
    if (method === 'GET' && id === undefined && !verb) {
      may('ListSubscriptions', { project: `projects/${project}` });
      const p = page(engine.listSubscriptions(project).map(subscriptionJson), url.searchParams);
      return p.next ? { subscriptions: p.items, nextPageToken: p.next } : { subscriptions: p.items };
    }
    throw notFoundRoute(method, path);
  }
  if (verb) {
    if (method !== 'POST') throw notFoundRoute(method, path);
    const rpc = VERB_RPC.get(verb);
    // Seek names its snapshot in the body: checked with it, below.
    if (rpc !== undefined && rpc !== 'Seek') may(rpc, { subscription: name });
    switch (verb) {
      case 'pull': {
        const req = input(PullKind);
        const max = (req['maxMessages'] as number | undefined) ?? 0;
        const wait = req['returnImmediately'] !== true;
        const deliveries = await engine.pull(name, max, wait, pullHoldMs(call.deadlineMs), call.signal);
        return deliveries.length > 0 ? { receivedMessages: deliveries.map(receivedJson) } : {};
      }
      case 'acknowledge': {
        const req = input(AckKind);
        await engine.acknowledge(name, (req['ackIds'] as string[] | undefined) ?? []);
        return {};
      }
      case 'modifyAckDeadline': {
        const req = input(ModAckKind);
        engine.modifyAckDeadline(
          name,
          (req['ackIds'] as string[] | undefined) ?? [],
          (req['ackDeadlineSeconds'] as number | undefined) ?? 0,
        );
        return {};
      }
      case 'detach':
        await engine.detachSubscription(name);
        return {};
      case 'seek': {
        const req = input(SeekKind);
        may('Seek', { subscription: name, snapshot: req['snapshot'] });
        await engine.seek(name, {
          snapshot: req['snapshot'] as string | undefined,
          time: rfc3339(req['time'], 'time'),
        });
        return {};
      }
      case 'modifyPushConfig': {
        const req = input(ModPushKind);
        await engine.modifyPushConfig(name, (req['pushConfig'] ?? {}) as SubscriptionInput['pushConfig']);
        return {};
      }
      default:
        throw notFoundRoute(method, path);
    }
  }
  switch (method) {
    case 'GET':
      may('GetSubscription', { subscription: name });
      return subscriptionJson(engine.getSubscription(name).resource);
    case 'PUT': {
      const sub = input(SubscriptionKind);
      may('CreateSubscription', { ...sub, name });
      refuseUnsupported(sub);
      return subscriptionJson(await engine.createSubscription(sub as SubscriptionInput, name));
    }
    case 'PATCH': {
      may('UpdateSubscription', { subscription: { name } });
      const req = input(UpdateSubscriptionKind);
      const sub = (req['subscription'] ?? {}) as Record<string, unknown>;
      refuseUnsupported(sub);
      return subscriptionJson(
        await engine.updateSubscription(
          sub as SubscriptionInput,
          name,
          (req['updateMask'] as string[] | undefined) ?? [],
        ),
      );
    }
    case 'DELETE':
      may('DeleteSubscription', { subscription: name });
      await engine.deleteSubscription(name);
      return {};
    default:
      throw notFoundRoute(method, path);
  }
}
