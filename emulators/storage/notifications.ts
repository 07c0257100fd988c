/**
 * Pub/Sub notifications, as Cloud Storage's JSON API serves them (docs/storage-emulator.md,
 * "Notifications"): a bucket's notification configurations (`/b/<b>/notificationConfigs[/<id>]`:
 * insert, get, list, delete), kept with the bucket (they survive a restart and go with it), and
 * the messages each object event sends to the configured topics (notify-events.ts says which
 * events a change is; notify-publisher.ts sends them).
 *
 * - insert (`storage.buckets.update`): `topic` as `//pubsub.googleapis.com/projects/<p>/topics/<t>`,
 *   `payload_format` `JSON_API_V1` or `NONE`, optional `event_types`, `object_name_prefix`,
 *   `custom_attributes`; at most 100 configurations a bucket and 10 sending any one event type
 *   (400 beyond). The topic must exist and Cloud Storage's service agent must hold
 *   `pubsub.topics.publish` on it (asked of Pub/Sub), else 400 `invalid` in Cloud Storage's words.
 * - get and list (`storage.buckets.get`), delete (`storage.buckets.update`); an unknown id is 404.
 * - a message: Cloud Storage's attributes (`notificationConfig`, `eventType`, `payloadFormat`,
 *   `bucketId`, `objectId`, `objectGeneration`, `eventTime`, `overwroteGeneration` /
 *   `overwrittenByGeneration` where they apply, and the configuration's custom attributes), and
 *   for `JSON_API_V1` the object's resource as JSON.
 */
import { mayBucket } from './access.ts';
import type { Catalog } from './catalog.ts';
import { StorageError } from './errors.ts';
import type { ObjectEvent } from './notify-events.ts';
import { type NotificationPublisher, STORAGE_SERVICE_AGENT } from './notify-publisher.ts';
import type { BucketState, NotificationConfig, NotificationEvent } from './records.ts';
import { renderObject } from './resources.ts';
import { type Ctx, readJson, sendJson } from './wire.ts';

const EVENTS: readonly NotificationEvent[] = [
  'OBJECT_FINALIZE',
  'OBJECT_METADATA_UPDATE',
  'OBJECT_DELETE',
  'OBJECT_ARCHIVE',
];
const MAX_CONFIGS = 100;
const MAX_PER_EVENT = 10;
const TOPIC = /^\/\/pubsub\.googleapis\.com\/(projects\/[^/\s]+\/topics\/[A-Za-z][\w.~+%-]{2,254})$/;
const AGENT_EMAIL = STORAGE_SERVICE_AGENT.slice('serviceAccount:'.length);

/** A field of the body in its JSON API name (`event_types`) or the camel-case one. */
function field(body: Record<string, unknown>, snake: string): unknown {
  const camel = snake.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  return body[snake] ?? body[camel];
}

function parseConfig(body: Record<string, unknown>): Omit<NotificationConfig, 'id'> {
  const topic = field(body, 'topic');
  if (topic === undefined || topic === '') throw new StorageError('required', 'Required: topic');
  if (typeof topic !== 'string' || !TOPIC.test(topic))
    throw new StorageError(
      'invalid',
      `Invalid Cloud Pub/Sub topic '${String(topic)}': expected //pubsub.googleapis.com/projects/PROJECT/topics/TOPIC.`,
    );
  const format = field(body, 'payload_format');
  if (format === undefined) throw new StorageError('required', 'Required: payload_format');
  if (format !== 'JSON_API_V1' && format !== 'NONE')
    throw new StorageError('invalid', `Invalid value for payload_format: ${String(format)}`);
  const types = field(body, 'event_types') ?? [];
  if (!Array.isArray(types) || types.some((t) => !EVENTS.includes(t as NotificationEvent)))
    throw new StorageError('invalid', `Invalid value for event_types: ${JSON.stringify(types)}`);
  const prefix = field(body, 'object_name_prefix');
  if (prefix !== undefined && typeof prefix !== 'string')
    throw new StorageError('invalid', 'Invalid value for object_name_prefix: expected a string.');
  const custom = field(body, 'custom_attributes');
  if (
    custom !== undefined &&
    (typeof custom !== 'object' ||
      custom === null ||
      Array.isArray(custom) ||
      Object.values(custom).some((v) => typeof v !== 'string'))
  )
    throw new StorageError('invalid', 'Invalid value for custom_attributes: expected string values.');
  return {
    topic,
    payloadFormat: format,
    eventTypes: [...new Set(types as NotificationEvent[])],
    ...(prefix ? { objectNamePrefix: prefix } : {}),
    ...(custom && Object.keys(custom).length > 0
      ? { customAttributes: custom as Record<string, string> }
      : {}),
  };
}

/** 400 when one more configuration would pass Cloud Storage's limits. */
function checkLimits(b: BucketState, next: Omit<NotificationConfig, 'id'>): void {
  const configs = b.notifications ?? [];
  if (configs.length >= MAX_CONFIGS)
    throw new StorageError(
      'invalid',
      `A bucket can have at most ${MAX_CONFIGS} notification configurations.`,
    );
  const sends = (c: Pick<NotificationConfig, 'eventTypes'>, e: NotificationEvent) =>
    c.eventTypes.length === 0 || c.eventTypes.includes(e);
  for (const e of EVENTS)
    if (sends(next, e) && configs.filter((c) => sends(c, e)).length >= MAX_PER_EVENT)
      throw new StorageError(
        'invalid',
        `A bucket can have at most ${MAX_PER_EVENT} notification configurations sending ${e}.`,
      );
}

const selfLink = (ctx: Ctx, bucket: string, id: string): string =>
  `${ctx.base}/storage/v1/b/${encodeURIComponent(bucket)}/notificationConfigs/${id}`;

function render(ctx: Ctx, bucket: string, n: NotificationConfig): Record<string, unknown> {
  return {
    kind: 'storage#notification',
    id: n.id,
    selfLink: selfLink(ctx, bucket, n.id),
    topic: n.topic,
    payload_format: n.payloadFormat,
    ...(n.eventTypes.length > 0 ? { event_types: n.eventTypes } : {}),
    ...(n.objectNamePrefix ? { object_name_prefix: n.objectNamePrefix } : {}),
    ...(n.customAttributes ? { custom_attributes: n.customAttributes } : {}),
    etag: Buffer.from(`notification/${bucket}/${n.id}`).toString('base64'),
  };
}

function find(b: BucketState, id: string): NotificationConfig {
  const n = (b.notifications ?? []).find((x) => x.id === id);
  if (!n) throw new StorageError('notFound', `Notification configuration ${id} not found.`);
  return n;
}

/**
 * insert: checks the body, then asks Pub/Sub whether the agent may publish to the topic (none
 * configured, or no answer: 400 / 503), then adds the configuration to the bucket as it is then.
 */
export async function insertNotification(
  c: Catalog,
  ctx: Ctx,
  bucket: string,
  publisher: NotificationPublisher | undefined,
): Promise<void> {
  c.bucket(bucket);
  const config = parseConfig(await readJson(ctx.req));
  checkLimits(c.bucket(bucket).state, config);
  if (!publisher)
    throw new StorageError(
      'invalid',
      'Notifications need a Pub/Sub endpoint: start the emulator with --pubsub-endpoint or PUBSUB_EMULATOR_HOST.',
    );
  const path = TOPIC.exec(config.topic)?.[1] as string;
  const may = await publisher.mayPublish(path);
  if (may === 'unreachable')
    throw new StorageError(
      'backendError',
      `Cloud Pub/Sub did not answer whether ${config.topic} exists; try again.`,
    );
  if (may === 'missing')
    throw new StorageError(
      'invalid',
      `Cloud Pub/Sub topic '${config.topic}' not found, or user '${AGENT_EMAIL}' does not have permission to it.`,
    );
  const b = c.bucket(bucket).state;
  checkLimits(b, config);
  const id = String((b.notificationSerial ?? 0) + 1);
  const added: NotificationConfig = { id, ...config };
  await c.putBucket({
    ...b,
    notifications: [...(b.notifications ?? []), added],
    notificationSerial: Number(id),
  });
  sendJson(ctx.res, 200, render(ctx, bucket, added));
}

export function getNotification(c: Catalog, ctx: Ctx, bucket: string, id: string): void {
  sendJson(ctx.res, 200, render(ctx, bucket, find(c.bucket(bucket).state, id)));
}

export function listNotifications(c: Catalog, ctx: Ctx, bucket: string): void {
  const items = (c.bucket(bucket).state.notifications ?? []).map((n) => render(ctx, bucket, n));
  sendJson(ctx.res, 200, { kind: 'storage#notifications', items });
}

export async function deleteNotification(c: Catalog, ctx: Ctx, bucket: string, id: string): Promise<void> {
  const b = c.bucket(bucket).state;
  find(b, id);
  await c.putBucket({ ...b, notifications: (b.notifications ?? []).filter((x) => x.id !== id) });
  ctx.res.writeHead(204);
  ctx.res.end();
}

/** The messages of one object event: one per configuration of its bucket that asks for it. */
export function messagesOf(
  b: BucketState,
  e: ObjectEvent,
  base: string,
): { topic: string; data?: string; attributes: Record<string, string> }[] {
  const o = e.object;
  const out: { topic: string; data?: string; attributes: Record<string, string> }[] = [];
  for (const n of b.notifications ?? []) {
    if (n.eventTypes.length > 0 && !n.eventTypes.includes(e.type)) continue;
    if (n.objectNamePrefix && !o.name.startsWith(n.objectNamePrefix)) continue;
    const attributes: Record<string, string> = {
      ...n.customAttributes,
      notificationConfig: `projects/_/buckets/${b.name}/notificationConfigs/${n.id}`,
      eventType: e.type,
      payloadFormat: n.payloadFormat,
      bucketId: o.bucket,
      objectId: o.name,
      objectGeneration: String(o.generation),
      eventTime: e.time,
      ...(e.overwroteGeneration !== undefined ? { overwroteGeneration: String(e.overwroteGeneration) } : {}),
      ...(e.overwrittenByGeneration !== undefined
        ? { overwrittenByGeneration: String(e.overwrittenByGeneration) }
        : {}),
    };
    const topic = TOPIC.exec(n.topic)?.[1] as string;
    const data =
      n.payloadFormat === 'JSON_API_V1'
        ? Buffer.from(JSON.stringify(renderObject(o, base, { bucket: b }))).toString('base64')
        : undefined;
    out.push({ topic, ...(data !== undefined ? { data } : {}), attributes });
  }
  return out;
}

/** Sends each event's messages through `publisher` (the catalog's `onObjectEvents`). */
export function notifier(c: Catalog, publisher: NotificationPublisher, base: () => string) {
  return (events: ObjectEvent[]): void => {
    for (const e of events) {
      const b = c.buckets.get(e.object.bucket)?.state;
      if (!b?.notifications?.length) continue;
      for (const { topic, ...message } of messagesOf(b, e, base())) publisher.enqueue(topic, message);
    }
  };
}

/**
 * `/b/<bucket>/notificationConfigs[/<id>]`: each call's permission (Cloud Storage's reference:
 * `storage.buckets.update` to insert and delete, `storage.buckets.get` to get and list), then
 * the call; undefined for a method the path does not serve.
 */
export function notificationCall(
  c: Catalog,
  ctx: Ctx,
  method: string,
  bucket: string,
  id: string | undefined,
  publisher: NotificationPublisher | undefined,
): Promise<void> | undefined {
  const read = method === 'GET';
  if (!read && !(method === 'POST' && id === undefined) && !(method === 'DELETE' && id !== undefined))
    return undefined;
  mayBucket(ctx, read ? 'storage.buckets.get' : 'storage.buckets.update', bucket);
  if (method === 'POST') return insertNotification(c, ctx, bucket, publisher);
  if (method === 'DELETE') return deleteNotification(c, ctx, bucket, id as string);
  return Promise.resolve(
    id === undefined ? listNotifications(c, ctx, bucket) : getNotification(c, ctx, bucket, id),
  );
}
