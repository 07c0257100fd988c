/**
 * Hand-written protobuf codecs for the three hot messages: PublishRequest (decode),
 * PublishResponse and StreamingPullResponse (encode). proto-loader's generic path (decode,
 * then toObject with defaults) cost ~6.5 ms per 1000-message Publish here; these cost a
 * fraction of that. Field numbers are those of google/pubsub/v1/pubsub.proto; the tests run
 * the real client against them. Everything else keeps proto-loader's codecs.
 *
 * Longer than ~600 lines because it is one concern: the byte-level readers and writers of these
 * messages share their varint, length and field-number helpers, and the publish decoder judges
 * Pub/Sub's limits on the raw bytes (so a valid request is never decoded twice).
 */

import { isUtf8 } from 'node:buffer';
import type { Delivery, PublishInput, StoredMessage } from './types.ts';

export interface DecodedPublish {
  readonly topic: string;
  /** Number of messages. */
  readonly count: number;
  /**
   * True when the request is certainly within Pub/Sub's limits (engine.ts checkPublish), judged
   * on its bytes; false when that could not be told (then checkPublish judges the messages).
   */
  readonly withinLimits: boolean;
  /** The messages, decoded on first use (a topic without subscriptions never needs them). */
  readonly messages: PublishInput[];
  /**
   * The request bytes as received. The engine logs them as they are (one copy instead of
   * re-encoding every message) and decodes them again with this same function on replay.
   */
  readonly raw: Buffer;
}

class ProtoReader {
  private readonly buf: Buffer;
  pos: number;
  private readonly end: number;

  constructor(buf: Buffer, pos = 0, end = buf.length) {
    this.buf = buf;
    this.pos = pos;
    this.end = end;
  }

  more(): boolean {
    return this.pos < this.end;
  }

  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const b = this.buf[this.pos++] as number;
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    throw new Error('varint too long');
  }

  /** Bounds of a length-delimited field. */
  span(): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) throw new Error('truncated field');
    this.pos = start + len;
    return [start, start + len];
  }

  string(): string {
    const [s, e] = this.span();
    return this.buf.toString('utf8', s, e);
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.pos += 8;
    else if (wireType === 2) this.span();
    else if (wireType === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

/**
 * Varint at `pos` within `end`, for the publish decoder's inner loop (no reader object per
 * field). Returns the value; the new position is left in `cursor[0]`.
 */
function readVarint(buf: Buffer, pos: number, end: number, cursor: number[]): number {
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw new Error('truncated varint');
    const b = buf[pos++] as number;
    result += (b & 0x7f) * mul;
    if (b < 0x80) {
      cursor[0] = pos;
      return result;
    }
    mul *= 128;
  }
  throw new Error('varint too long');
}

/** Bytes [a, a+n) and [b, b+n) of `buf` are equal (short attribute entries: a JS loop beats a native call). */
function sameBytes(buf: Buffer, a: number, b: number, n: number): boolean {
  if (n > 64) return buf.compare(buf, a, a + n, b, b + n) === 0;
  for (let i = 0; i < n; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

/**
 * Attribute entries of the previous message: publishers mostly send the same attributes on
 * every message of a batch, so an entry whose bytes equal the previous message's entry at the
 * same index reuses its decoded strings instead of decoding two strings again.
 */
interface EntryCache {
  starts: number[];
  lens: number[];
  keys: string[];
  values: string[];
  count: number;
}

/** Decodes one map entry (key = 1, value = 2) of PubsubMessage.attributes. */
function decodeEntry(buf: Buffer, pos: number, end: number, cursor: number[], out: string[]): void {
  let key = '';
  let value = '';
  while (pos < end) {
    const t = readVarint(buf, pos, end, cursor);
    pos = cursor[0] as number;
    if (t === 0x0a || t === 0x12) {
      const len = readVarint(buf, pos, end, cursor);
      pos = cursor[0] as number;
      if (pos + len > end) throw new Error('truncated field');
      const text = buf.toString('utf8', pos, pos + len);
      if (t === 0x0a) key = text;
      else value = text;
      pos += len;
    } else {
      const r = new ProtoReader(buf, pos, end);
      r.skip(t & 7);
      pos = r.pos;
    }
  }
  out[0] = key;
  out[1] = value;
}

/**
 * Bytes after a message's own bytes, kept free for the two fields the server adds:
 * message_id (tag, length, at most 16 digits: ids stay below 2^53) and publish_time (tag,
 * length, seconds and nanos as varints of at most 5 bytes each).
 */
export const PB_ROOM = 2 + 16 + 2 + 6 + 6;

function decodeMessage(
  buf: Buffer,
  pos: number,
  end: number,
  cursor: number[],
  prev: EntryCache,
  next: EntryCache,
  kv: string[],
): PublishInput {
  // Nothing is copied here: `data` is a view into the request, and the message's bytes are
  // copied out (once, with room for the fields the server adds) only if a subscription keeps
  // the message (codec.ts storedMessage); a topic without subscriptions copies nothing.
  const start = pos;
  let data: Buffer = EMPTY;
  const attributes: Record<string, string> = {};
  let orderingKey = '';
  // Only data (1), attributes (2) and ordering_key (5) may be passed through: a publisher that
  // set message_id (3) or publish_time (4) would see its publish_time merged with ours.
  let plain = true;
  next.count = 0;
  while (pos < end) {
    const tag = readVarint(buf, pos, end, cursor);
    pos = cursor[0] as number;
    const wire = tag & 7;
    if (wire === 2) {
      const len = readVarint(buf, pos, end, cursor);
      const s = cursor[0] as number;
      const e = s + len;
      if (e > end) throw new Error('truncated field');
      pos = e;
      if (tag === 0x0a) {
        data = buf.subarray(s, e);
      } else if (tag === 0x12) {
        const i = next.count++;
        let key: string;
        let value: string;
        if (i < prev.count && prev.lens[i] === len && sameBytes(buf, prev.starts[i] as number, s, len)) {
          key = prev.keys[i] as string;
          value = prev.values[i] as string;
        } else {
          decodeEntry(buf, s, e, cursor, kv);
          key = kv[0] as string;
          value = kv[1] as string;
        }
        next.starts[i] = s;
        next.lens[i] = len;
        next.keys[i] = key;
        next.values[i] = value;
        attributes[key] = value;
      } else if (tag === 0x2a) {
        orderingKey = buf.toString('utf8', s, e);
      } else {
        plain = false;
      }
    } else {
      plain = false;
      const r = new ProtoReader(buf, pos, end);
      r.skip(wire);
      pos = r.pos;
    }
  }
  return { data, attributes, orderingKey, src: buf, start, end, plain };
}

const EMPTY = Buffer.alloc(0);

const emptyCache = (): EntryCache => ({ starts: [], lens: [], keys: [], values: [], count: 0 });

/**
 * Pub/Sub's limits of a publish request (docs/google-wire.md §1), here because the request's
 * bytes are first judged here; publish.ts checks them again for REST.
 */
export const PUBLISH_LIMITS = {
  messagesPerRequest: 1000,
  bytesPerRequest: 10_000_000,
  bytesPerMessage: 10_000_000,
  attributesPerMessage: 100,
  attributeKeyBytes: 256,
  attributeValueBytes: 1024,
  orderingKeyBytes: 1024,
} as const;
const MAX_MESSAGES = PUBLISH_LIMITS.messagesPerRequest;
const MAX_BYTES = PUBLISH_LIMITS.bytesPerRequest;
const MAX_MESSAGE_BYTES = PUBLISH_LIMITS.bytesPerMessage;
const MAX_ATTRIBUTES = PUBLISH_LIMITS.attributesPerMessage;
const MAX_KEY_BYTES = PUBLISH_LIMITS.attributeKeyBytes;
const MAX_VALUE_BYTES = PUBLISH_LIMITS.attributeValueBytes;
const MAX_ORDERING_KEY_BYTES = PUBLISH_LIMITS.orderingKeyBytes;

/**
 * Whether bytes [s, e) of `buf`, decoded as UTF-8, are certainly at most `max` bytes: decoding
 * turns each invalid byte into U+FFFD (3 bytes), so only a span short enough for that or valid
 * UTF-8 is sure.
 */
const fitsDecoded = (buf: Buffer, s: number, e: number, max: number): boolean =>
  e - s <= max && ((e - s) * 3 <= max || isUtf8(buf.subarray(s, e)));

/** "goog" at `pos`: attribute keys starting with it are reserved. */
const isGoog = (buf: Buffer, pos: number, end: number): boolean =>
  end - pos >= 4 &&
  buf[pos] === 0x67 &&
  buf[pos + 1] === 0x6f &&
  buf[pos + 2] === 0x6f &&
  buf[pos + 3] === 0x67;

/**
 * Reads one PubsubMessage's structure without decoding it (no strings, no objects) and returns
 * its size for the limits, or -1 when it is not certainly within them. It reads every field as
 * decodeMessage does, so a malformed request fails here, where it always failed.
 * `key` holds the first message's ordering key bounds ([-1, -1] until it is seen).
 */
function scanMessage(buf: Buffer, pos: number, end: number, cursor: number[], key: number[]): number {
  let size = 0;
  let entries = 0;
  let dataLen = 0;
  let keyStart = 0;
  let keyEnd = 0;
  let sure = true;
  while (pos < end) {
    const tag = readVarint(buf, pos, end, cursor);
    pos = cursor[0] as number;
    if ((tag & 7) !== 2) {
      const r = new ProtoReader(buf, pos, end);
      r.skip(tag & 7);
      pos = r.pos;
      continue;
    }
    const len = readVarint(buf, pos, end, cursor);
    const s = cursor[0] as number;
    const e = s + len;
    if (e > end) throw new Error('truncated field');
    pos = e;
    if (tag === 0x0a) {
      dataLen = len;
    } else if (tag === 0x12) {
      entries++;
      // The entry's own fields: key = 1, value = 2 (the last of each counts, as decodeEntry).
      let ks = s;
      let ke = s;
      let vs = s;
      let ve = s;
      let p = s;
      while (p < e) {
        const t = readVarint(buf, p, e, cursor);
        p = cursor[0] as number;
        if (t === 0x0a || t === 0x12) {
          const n = readVarint(buf, p, e, cursor);
          const fs = cursor[0] as number;
          if (fs + n > e) throw new Error('truncated field');
          if (t === 0x0a) {
            ks = fs;
            ke = fs + n;
          } else {
            vs = fs;
            ve = fs + n;
          }
          p = fs + n;
        } else {
          const r = new ProtoReader(buf, p, e);
          r.skip(t & 7);
          p = r.pos;
        }
      }
      if (ke === ks || isGoog(buf, ks, ke)) sure = false;
      else if (!fitsDecoded(buf, ks, ke, MAX_KEY_BYTES) || !fitsDecoded(buf, vs, ve, MAX_VALUE_BYTES))
        sure = false;
      // Counted as if every byte could grow to three: an upper bound without decoding.
      size += (ke - ks + ve - vs) * 3;
    } else if (tag === 0x2a) {
      keyStart = s;
      keyEnd = e;
    }
  }
  const keyLen = keyEnd - keyStart;
  if (!fitsDecoded(buf, keyStart, keyEnd, MAX_ORDERING_KEY_BYTES)) sure = false;
  if ((key[0] as number) < 0) {
    key[0] = keyStart;
    key[1] = keyEnd;
  } else if (
    (key[1] as number) - (key[0] as number) !== keyLen ||
    (keyLen > 0 && buf.compare(buf, key[0], key[1], keyStart, keyEnd) !== 0)
  ) {
    // Other bytes: a different key (or the same one spelled with invalid UTF-8); checkPublish says.
    sure = false;
  }
  if (entries > MAX_ATTRIBUTES || (entries === 0 && dataLen === 0)) sure = false;
  size += dataLen + keyLen * 3;
  return sure && size <= MAX_MESSAGE_BYTES ? size : -1;
}

/** A PublishRequest whose structure was read; its messages are decoded on first use. */
class ScannedPublish implements DecodedPublish {
  readonly topic: string;
  readonly raw: Buffer;
  readonly count: number;
  readonly withinLimits: boolean;
  /** Start and end of each message in `raw`. */
  private readonly spans: number[];
  private decoded: PublishInput[] | undefined;

  constructor(raw: Buffer, topic: string, spans: number[], withinLimits: boolean) {
    this.raw = raw;
    this.topic = topic;
    this.spans = spans;
    this.count = spans.length / 2;
    this.withinLimits = withinLimits;
  }

  get messages(): PublishInput[] {
    if (this.decoded) return this.decoded;
    const out: PublishInput[] = [];
    const cursor = [0];
    const kv = ['', ''];
    let prev = emptyCache();
    let next = emptyCache();
    for (let i = 0; i < this.spans.length; i += 2) {
      out.push(
        decodeMessage(this.raw, this.spans[i] as number, this.spans[i + 1] as number, cursor, prev, next, kv),
      );
      const t = prev;
      prev = next;
      next = t;
    }
    this.decoded = out;
    return out;
  }
}

/**
 * Reads a PublishRequest (topic = 1, messages = 2): its topic, where each message is, and
 * whether it is certainly within Pub/Sub's limits; the messages themselves are decoded when
 * first asked for (`messages`). A request to a topic without subscriptions is then logged as
 * received and answered without a string or an object made per message.
 */
export function decodePublishRequest(buf: Buffer): DecodedPublish {
  const r = new ProtoReader(buf);
  let topic = '';
  const spans: number[] = [];
  const cursor = [0];
  const key = [-1, -1];
  let total = 0;
  let sure = true;
  while (r.more()) {
    const tag = r.varint();
    if (tag === 0x0a) {
      topic = r.string();
    } else if (tag === 0x12) {
      const [s, e] = r.span();
      spans.push(s, e);
      const size = scanMessage(buf, s, e, cursor, key);
      if (size < 0) sure = false;
      total += size;
    } else {
      r.skip(tag & 7);
    }
  }
  const count = spans.length / 2;
  const within = sure && count > 0 && count <= MAX_MESSAGES && total <= MAX_BYTES;
  return new ScannedPublish(buf, topic, spans, within);
}

const varintSize = (n: number): number => {
  let size = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
};

class ProtoWriter {
  readonly buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  varint(n: number): void {
    this.pos = writeVarint(this.buf, this.pos, n);
  }

  /** Tag + length + UTF-8 bytes; `len` must be the string's byte length. */
  string(tag: number, s: string, len: number): void {
    this.buf[this.pos++] = tag;
    this.varint(len);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(tag: number, b: Buffer): void {
    this.buf[this.pos++] = tag;
    this.varint(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }
}

/** Encodes a PublishResponse (message_ids = 1). */
export function encodePublishResponse(res: { messageIds: readonly string[] }): Buffer {
  let size = 0;
  for (const id of res.messageIds) size += 1 + varintSize(id.length) + id.length;
  const w = new ProtoWriter(size);
  // Ids are ASCII digits, so string length = byte length.
  for (const id of res.messageIds) w.string(0x0a, id, id.length);
  return w.buf;
}

/**
 * Copies a message the decoder left in its request (`src`, bytes [start, end)) into its own
 * buffer with room after it, then writes message_id (3) and publish_time (4) there: the
 * publisher's bytes (data 1, attributes 2, ordering_key 5) followed by ours make the encoded
 * PubsubMessage (fields may come in any order on the wire). Returns the encoded message and
 * its data, a view into the same buffer.
 */
export function ownPubsubMessage(
  src: Buffer,
  start: number,
  end: number,
  data: Buffer,
  idText: string,
  publishTime: number,
): { pb: Buffer; data: Buffer } {
  const len = end - start;
  const w = new ProtoWriter(len + PB_ROOM);
  src.copy(w.buf, 0, start, end);
  const dataAt = data.length === 0 ? 0 : data.byteOffset - src.byteOffset - start;
  w.pos = len;
  const seconds = Math.floor(publishTime / 1000);
  const nanos = (publishTime - seconds * 1000) * 1_000_000;
  writeIdAndTime(w, idText, seconds, nanos);
  return {
    pb: w.buf.subarray(0, w.pos),
    data: data.length === 0 ? EMPTY : w.buf.subarray(dataAt, dataAt + data.length),
  };
}

/** message_id (3) and publish_time (4: seconds 1, nanos 2) of a PubsubMessage. */
function writeIdAndTime(w: ProtoWriter, idText: string, seconds: number, nanos: number): void {
  w.buf[w.pos++] = 0x1a;
  w.varint(idText.length);
  w.pos = writeAscii(w.buf, w.pos, idText);
  w.buf[w.pos++] = 0x22;
  w.varint(1 + varintSize(seconds) + (nanos > 0 ? 1 + varintSize(nanos) : 0));
  w.buf[w.pos++] = 0x08;
  w.varint(seconds);
  if (nanos > 0) {
    w.buf[w.pos++] = 0x10;
    w.varint(nanos);
  }
}

function writeVarint(buf: Buffer, pos: number, n: number): number {
  while (n >= 128) {
    buf[pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

/** ASCII text (ack ids, message ids) byte by byte: for a few characters, cheaper than a UTF-8 write call. */
function writeAscii(buf: Buffer, pos: number, text: string): number {
  for (let i = 0; i < text.length; i++) buf[pos++] = text.charCodeAt(i);
  return pos;
}

interface SizedMessage {
  readonly m: StoredMessage;
  readonly ackIdLen: number;
  readonly idText: string;
  readonly attrs: [string, number, string, number][];
  readonly keyLen: number;
  readonly seconds: number;
  readonly nanos: number;
  readonly msgSize: number;
  readonly rmSize: number;
}

function sizeOf(d: Delivery): SizedMessage {
  const m = d.message;
  const idText = String(m.id);
  const attrs: [string, number, string, number][] = [];
  let msgSize = 0;
  if (m.data.length > 0) msgSize += 1 + varintSize(m.data.length) + m.data.length;
  for (const k in m.attributes) {
    const v = m.attributes[k] as string;
    const kl = Buffer.byteLength(k);
    const vl = Buffer.byteLength(v);
    const entry = 1 + varintSize(kl) + kl + 1 + varintSize(vl) + vl;
    attrs.push([k, kl, v, vl]);
    msgSize += 1 + varintSize(entry) + entry;
  }
  msgSize += 1 + varintSize(idText.length) + idText.length;
  const seconds = Math.floor(m.publishTime / 1000);
  const nanos = (m.publishTime - seconds * 1000) * 1_000_000;
  const tsSize = 1 + varintSize(seconds) + (nanos > 0 ? 1 + varintSize(nanos) : 0);
  msgSize += 1 + varintSize(tsSize) + tsSize;
  const keyLen = Buffer.byteLength(m.orderingKey);
  if (keyLen > 0) msgSize += 1 + varintSize(keyLen) + keyLen;
  const ackIdLen = d.ackId.length;
  let rmSize = 1 + varintSize(ackIdLen) + ackIdLen + 1 + varintSize(msgSize) + msgSize;
  if (d.deliveryAttempt > 0) rmSize += 1 + varintSize(d.deliveryAttempt);
  return { m, ackIdLen, idText, attrs, keyLen, seconds, nanos, msgSize, rmSize };
}

/** Bytes of one ReceivedMessage whose message is already encoded (`pb`). */
function encodedSize(d: Delivery, pb: Buffer): number {
  const ackIdLen = d.ackId.length;
  let n = 1 + varintSize(ackIdLen) + ackIdLen + 1 + varintSize(pb.length) + pb.length;
  if (d.deliveryAttempt > 0) n += 1 + varintSize(d.deliveryAttempt);
  return n;
}

/**
 * Encodes a StreamingPullResponse: received_messages = 1 (ack_id 1, message 2,
 * delivery_attempt 3), subscription_properties = 4 (exactly_once 1, ordering 2). A message the
 * decoder kept as received (`pb`) is copied as it is; others are encoded field by field.
 */
export function encodeStreamingPullResponse(
  deliveries: readonly Delivery[],
  props: { exactlyOnce: boolean; ordering: boolean },
): Buffer {
  const n = deliveries.length;
  const sizes: number[] = new Array(n);
  const sized: (SizedMessage | undefined)[] = new Array(n);
  const propsSize = (props.exactlyOnce ? 2 : 0) + (props.ordering ? 2 : 0);
  let size = 2 + propsSize;
  for (let i = 0; i < n; i++) {
    const d = deliveries[i] as Delivery;
    const pb = d.message.pb;
    let rm: number;
    if (pb !== undefined) {
      rm = encodedSize(d, pb);
      sized[i] = undefined;
    } else {
      const s = sizeOf(d);
      sized[i] = s;
      rm = s.rmSize;
    }
    sizes[i] = rm;
    size += 1 + varintSize(rm) + rm;
  }
  const w = new ProtoWriter(size);
  for (let i = 0; i < n; i++) {
    const d = deliveries[i] as Delivery;
    const buf = w.buf;
    buf[w.pos++] = 0x0a;
    w.varint(sizes[i] as number);
    buf[w.pos++] = 0x0a;
    w.varint(d.ackId.length);
    w.pos = writeAscii(buf, w.pos, d.ackId);
    const pb = d.message.pb;
    if (pb !== undefined) {
      buf[w.pos++] = 0x12;
      w.varint(pb.length);
      buf.set(pb, w.pos);
      w.pos += pb.length;
    } else {
      writeMessage(w, sized[i] as SizedMessage);
    }
    if (d.deliveryAttempt > 0) {
      buf[w.pos++] = 0x18;
      w.varint(d.deliveryAttempt);
    }
  }
  w.buf[w.pos++] = 0x22;
  w.varint(propsSize);
  if (props.exactlyOnce) {
    w.buf[w.pos++] = 0x08;
    w.buf[w.pos++] = 1;
  }
  if (props.ordering) {
    w.buf[w.pos++] = 0x10;
    w.buf[w.pos++] = 1;
  }
  return w.buf.subarray(0, w.pos);
}

/** Field 2 of a ReceivedMessage: the PubsubMessage encoded field by field. */
function writeMessage(w: ProtoWriter, s: SizedMessage): void {
  w.buf[w.pos++] = 0x12;
  w.varint(s.msgSize);
  if (s.m.data.length > 0) w.bytes(0x0a, s.m.data);
  for (const [k, kl, v, vl] of s.attrs) {
    w.buf[w.pos++] = 0x12;
    w.varint(1 + varintSize(kl) + kl + 1 + varintSize(vl) + vl);
    w.string(0x0a, k, kl);
    w.string(0x12, v, vl);
  }
  writeIdAndTime(w, s.idText, s.seconds, s.nanos);
  if (s.keyLen > 0) w.string(0x2a, s.m.orderingKey, s.keyLen);
}
