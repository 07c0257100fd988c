/**
 * Binary encoding of log records. Publishes are the hot path (100k messages/s), so messages are
 * written field by field into one buffer instead of going through JSON and base64.
 */
import type { SubscriptionResource, TopicResource } from './resources.ts';
import type { StoredSchema } from './schemas.ts';
import type { PublishInput, StoredMessage } from './types.ts';
import { decodePublishRequest, ownPubsubMessage } from './wire.ts';

export const REC = {
  TOPIC_PUT: 1,
  TOPIC_DEL: 2,
  SUB_PUT: 3,
  SUB_DEL: 4,
  PUBLISH: 5,
  ACK: 6,
  SUB_MESSAGES: 7,
  NEXT_ID: 8,
  /**
   * A gRPC publish as received: f64 first id, f64 publish time, then the PublishRequest bytes.
   * Logging the request bytes costs one copy; re-encoding 1000 messages field by field cost
   * more than decoding them. Ids are consecutive from the first. Decoded into a PUBLISH record.
   */
  PUBLISH_PB: 9,
  /**
   * Delivery attempts of messages that came back unacknowledged (nack, expired lease), for
   * subscriptions with a dead-letter policy: after a restart `deliveryAttempt` goes on
   * counting and a message is still dead-lettered after its last attempt.
   */
  ATTEMPTS: 10,
  /**
   * A snapshot's resource; with `sub`, its messages are that subscription's unacknowledged ones
   * at this point of the log (replay rebuilds the same set), else SNAP_MESSAGES records follow.
   */
  SNAP_PUT: 11,
  SNAP_DEL: 12,
  /** Messages a snapshot holds (written by compaction). */
  SNAP_MESSAGES: 13,
  /** A Seek, replayed as it ran: to a publish time (ms) or to a snapshot. */
  SEEK: 14,
  /** An IAM policy set on a topic, subscription or snapshot (with `--iam` it grants: iam.ts). */
  IAM_PUT: 15,
  /** Acknowledged messages a subscription retains (`retainAckedMessages`), written by compaction. */
  RETAINED: 16,
  /** A schema with all its revisions (after a create, commit, rollback or revision delete). */
  SCHEMA_PUT: 17,
  SCHEMA_DEL: 18,
} as const;

export interface SnapshotResource {
  name: string;
  topic: string;
  /** Milliseconds since the epoch. */
  expireTime: number;
  labels?: Record<string, string>;
}

export type LogRecord =
  | { type: typeof REC.TOPIC_PUT; topic: TopicResource }
  | { type: typeof REC.TOPIC_DEL; name: string }
  | { type: typeof REC.SUB_PUT; sub: SubscriptionResource }
  | { type: typeof REC.SUB_DEL; name: string }
  | { type: typeof REC.PUBLISH; topic: string; messages: StoredMessage[] }
  | { type: typeof REC.ACK; sub: string; ids: number[] }
  | { type: typeof REC.SUB_MESSAGES; sub: string; messages: StoredMessage[] }
  | { type: typeof REC.NEXT_ID; next: number }
  | { type: typeof REC.ATTEMPTS; sub: string; ids: number[]; attempts: number[] }
  | { type: typeof REC.SNAP_PUT; snapshot: SnapshotResource; sub: string }
  | { type: typeof REC.SNAP_DEL; name: string }
  | { type: typeof REC.SNAP_MESSAGES; snapshot: string; messages: StoredMessage[] }
  | { type: typeof REC.RETAINED; sub: string; messages: StoredMessage[] }
  | { type: typeof REC.SEEK; sub: string; time?: number; snapshot?: string }
  | { type: typeof REC.IAM_PUT; resource: string; policy: unknown }
  | { type: typeof REC.SCHEMA_PUT; schema: StoredSchema }
  | { type: typeof REC.SCHEMA_DEL; name: string };

class Writer {
  buf: Buffer;
  off = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  u8(v: number): void {
    this.buf[this.off++] = v;
  }
  u32(v: number): void {
    this.buf.writeUInt32LE(v, this.off);
    this.off += 4;
  }
  f64(v: number): void {
    this.buf.writeDoubleLE(v, this.off);
    this.off += 8;
  }
  str(s: string): void {
    const n = this.buf.write(s, this.off + 4, 'utf8');
    this.buf.writeUInt32LE(n, this.off);
    this.off += 4 + n;
  }
  bytes(b: Buffer): void {
    this.u32(b.length);
    b.copy(this.buf, this.off);
    this.off += b.length;
  }
}

class Reader {
  private readonly buf: Buffer;
  off = 0;
  constructor(buf: Buffer) {
    this.buf = buf;
  }
  u8(): number {
    return this.buf[this.off++] as number;
  }
  u32(): number {
    const v = this.buf.readUInt32LE(this.off);
    this.off += 4;
    return v;
  }
  f64(): number {
    const v = this.buf.readDoubleLE(this.off);
    this.off += 8;
    return v;
  }
  str(): string {
    const n = this.u32();
    const s = this.buf.toString('utf8', this.off, this.off + n);
    this.off += n;
    return s;
  }
  bytes(): Buffer {
    const n = this.u32();
    // Copy: the record buffer is the whole log file, which should not stay referenced.
    const b = Buffer.from(this.buf.subarray(this.off, this.off + n));
    this.off += n;
    return b;
  }
}

const strSize = (s: string): number => 4 + Buffer.byteLength(s);

function messageSize(m: StoredMessage): number {
  let n = 8 + 8 + strSize(m.orderingKey) + 4 + 4 + m.data.length;
  for (const k in m.attributes) n += strSize(k) + strSize(m.attributes[k] as string);
  return n;
}

function writeMessage(w: Writer, m: StoredMessage): void {
  w.f64(m.id);
  w.f64(m.publishTime);
  w.str(m.orderingKey);
  const keys = Object.keys(m.attributes);
  w.u32(keys.length);
  for (const k of keys) {
    w.str(k);
    w.str(m.attributes[k] as string);
  }
  w.bytes(m.data);
}

/**
 * The stored form of a published message; `size` as `readMessage` computes it on replay. A
 * message decoded from gRPC is copied out of its request here (only messages a subscription
 * keeps are), the same way when it is published and when its log record is replayed: as its
 * encoded form completed with `id` and `publishTime` when the publisher sent only data,
 * attributes and ordering key, else as a copy of its data.
 */
export function storedMessage(
  input: PublishInput,
  id: number,
  publishTime: number,
  idText = String(id),
): StoredMessage {
  let size = input.data.length + input.orderingKey.length;
  for (const k in input.attributes) size += k.length + (input.attributes[k] as string).length;
  let data = input.data;
  let pb: Buffer | undefined;
  const src = input.src;
  if (src !== undefined) {
    if (input.plain) {
      const own = ownPubsubMessage(src, input.start ?? 0, input.end ?? 0, data, idText, publishTime);
      data = own.data;
      pb = own.pb;
    } else {
      // A copy: a view would keep the whole request alive while the message waits.
      data = Buffer.allocUnsafe(data.length);
      input.data.copy(data);
    }
  }
  return { id, publishTime, data, attributes: input.attributes, orderingKey: input.orderingKey, size, pb };
}

/** Head of a PUBLISH_PB record payload; the request bytes follow it. */
export function publishRawHead(firstId: number, publishTime: number): Buffer {
  const w = new Writer(17);
  w.u8(REC.PUBLISH_PB);
  w.f64(firstId);
  w.f64(publishTime);
  return w.buf;
}

function readMessage(r: Reader): StoredMessage {
  const id = r.f64();
  const publishTime = r.f64();
  const orderingKey = r.str();
  const n = r.u32();
  const attributes: Record<string, string> = {};
  let size = orderingKey.length;
  for (let i = 0; i < n; i++) {
    const k = r.str();
    const v = r.str();
    attributes[k] = v;
    size += k.length + v.length;
  }
  const data = r.bytes();
  return { id, publishTime, data, attributes, orderingKey, size: size + data.length, pb: undefined };
}

function encodeMessages(type: number, name: string, messages: readonly StoredMessage[]): Buffer {
  let size = 1 + strSize(name) + 4;
  for (const m of messages) size += messageSize(m);
  const w = new Writer(size);
  w.u8(type);
  w.str(name);
  w.u32(messages.length);
  for (const m of messages) writeMessage(w, m);
  return w.buf.subarray(0, w.off);
}

function encodeText(type: number, text: string): Buffer {
  const w = new Writer(1 + strSize(text));
  w.u8(type);
  w.str(text);
  return w.buf.subarray(0, w.off);
}

/** Encodes a record payload (not yet framed). */
export function encodeRecord(rec: LogRecord): Buffer {
  switch (rec.type) {
    case REC.TOPIC_PUT:
      return encodeText(rec.type, JSON.stringify(rec.topic));
    case REC.SUB_PUT:
      return encodeText(rec.type, JSON.stringify(rec.sub));
    case REC.TOPIC_DEL:
    case REC.SUB_DEL:
    case REC.SNAP_DEL:
    case REC.SCHEMA_DEL:
      return encodeText(rec.type, rec.name);
    case REC.SCHEMA_PUT:
      return encodeText(rec.type, JSON.stringify(rec.schema));
    case REC.SNAP_PUT:
      return encodeText(rec.type, JSON.stringify({ snapshot: rec.snapshot, sub: rec.sub }));
    case REC.SEEK:
      return encodeText(rec.type, JSON.stringify({ sub: rec.sub, time: rec.time, snapshot: rec.snapshot }));
    case REC.IAM_PUT:
      return encodeText(rec.type, JSON.stringify({ resource: rec.resource, policy: rec.policy }));
    case REC.SNAP_MESSAGES:
      return encodeMessages(rec.type, rec.snapshot, rec.messages);
    case REC.RETAINED:
      return encodeMessages(rec.type, rec.sub, rec.messages);
    case REC.PUBLISH:
      return encodeMessages(rec.type, rec.topic, rec.messages);
    case REC.SUB_MESSAGES:
      return encodeMessages(rec.type, rec.sub, rec.messages);
    case REC.ACK: {
      const w = new Writer(1 + strSize(rec.sub) + 4 + 8 * rec.ids.length);
      w.u8(rec.type);
      w.str(rec.sub);
      w.u32(rec.ids.length);
      for (const id of rec.ids) w.f64(id);
      return w.buf.subarray(0, w.off);
    }
    case REC.ATTEMPTS: {
      const w = new Writer(1 + strSize(rec.sub) + 4 + 12 * rec.ids.length);
      w.u8(rec.type);
      w.str(rec.sub);
      w.u32(rec.ids.length);
      for (let i = 0; i < rec.ids.length; i++) {
        w.f64(rec.ids[i] as number);
        w.u32(rec.attempts[i] as number);
      }
      return w.buf.subarray(0, w.off);
    }
    case REC.NEXT_ID: {
      const w = new Writer(9);
      w.u8(rec.type);
      w.f64(rec.next);
      return w.buf;
    }
  }
}

export function decodeRecord(payload: Buffer): LogRecord {
  const r = new Reader(payload);
  const type = r.u8();
  switch (type) {
    case REC.TOPIC_PUT:
      return { type, topic: JSON.parse(r.str()) as TopicResource };
    case REC.SUB_PUT:
      return { type, sub: JSON.parse(r.str()) as SubscriptionResource };
    case REC.TOPIC_DEL:
    case REC.SUB_DEL:
    case REC.SNAP_DEL:
    case REC.SCHEMA_DEL:
      return { type, name: r.str() };
    case REC.SNAP_PUT: {
      const v = JSON.parse(r.str()) as { snapshot: SnapshotResource; sub: string };
      return { type, snapshot: v.snapshot, sub: v.sub };
    }
    case REC.SEEK: {
      const v = JSON.parse(r.str()) as { sub: string; time?: number; snapshot?: string };
      return {
        type,
        sub: v.sub,
        ...(v.time !== undefined ? { time: v.time } : {}),
        ...(v.snapshot !== undefined ? { snapshot: v.snapshot } : {}),
      };
    }
    case REC.IAM_PUT: {
      const v = JSON.parse(r.str()) as { resource: string; policy: unknown };
      return { type, resource: v.resource, policy: v.policy };
    }
    case REC.SCHEMA_PUT:
      return { type, schema: JSON.parse(r.str()) as StoredSchema };
    case REC.PUBLISH:
    case REC.SUB_MESSAGES:
    case REC.SNAP_MESSAGES:
    case REC.RETAINED: {
      const name = r.str();
      const n = r.u32();
      const messages: StoredMessage[] = [];
      for (let i = 0; i < n; i++) messages.push(readMessage(r));
      if (type === REC.PUBLISH) return { type, topic: name, messages };
      if (type === REC.SNAP_MESSAGES) return { type, snapshot: name, messages };
      return { type, sub: name, messages };
    }
    case REC.ACK: {
      const sub = r.str();
      const n = r.u32();
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push(r.f64());
      return { type, sub, ids };
    }
    case REC.ATTEMPTS: {
      const sub = r.str();
      const n = r.u32();
      const ids: number[] = [];
      const attempts: number[] = [];
      for (let i = 0; i < n; i++) {
        ids.push(r.f64());
        attempts.push(r.u32());
      }
      return { type, sub, ids, attempts };
    }
    case REC.NEXT_ID:
      return { type, next: r.f64() };
    case REC.PUBLISH_PB: {
      const firstId = r.f64();
      const publishTime = r.f64();
      const req = decodePublishRequest(payload.subarray(r.off));
      const messages = req.messages.map((m, i) => storedMessage(m, firstId + i, publishTime));
      return { type: REC.PUBLISH, topic: req.topic, messages };
    }
    default:
      throw new Error(`unknown log record type ${type}`);
  }
}
