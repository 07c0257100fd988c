/**
 * Publishing: a request checked against Pub/Sub's limits (docs/google-wire.md §1), stamped with
 * its topic's schema attributes, given ids, fanned out to the topic's subscriptions and
 * snapshots, and logged (as the gRPC bytes it arrived as when nothing changed them).
 */
import { frameParts } from '@eventbus/emulator-common/append-log.ts';
import { publishRawHead, REC, storedMessage } from './codec.ts';
import type { EngineState } from './engine-state.ts';
import { invalid, notFound, tooLarge, tooSmall } from './errors.ts';
import { scheduleDispatch } from './leasing.ts';
import { parseName, shortName } from './resources.ts';
import { schemaAttributes } from './schemas.ts';
import type { PublishInput, StoredMessage } from './types.ts';
import { PUBLISH_LIMITS as LIMITS } from './wire.ts';

/** How long after a publish is answered its messages are first offered to subscribers. */
export const PUBLISH_TO_DELIVERY_MS = 10;

/**
 * Fast path of checkPublish: true when the request is certainly valid, judged on string
 * lengths (a UTF-16 unit is at most 3 UTF-8 bytes) without measuring every string's bytes.
 * When it cannot tell, checkPublish measures exactly and names the first violation.
 */
function withinLimits(messages: readonly PublishInput[]): boolean {
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
export function checkPublish(messages: readonly PublishInput[]): void {
  if (messages.length === 0) throw tooSmall('message_count', 0, 1, 'messages');
  if (messages.length > LIMITS.messagesPerRequest) {
    throw tooLarge('message_count', messages.length, LIMITS.messagesPerRequest, 'messages');
  }
  if (withinLimits(messages)) return;
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
 * Publishes `count` messages to a topic; resolves with their ids once they are durable. The
 * messages are built by `messagesOf` only when something needs them: limits `withinLimits` could
 * not vouch for, a topic with a schema, subscriptions or snapshots to give them to. `raw`, when
 * given, is the PublishRequest they were decoded from (gRPC): it is logged as received.
 */
export async function publishBatch(
  s: EngineState,
  topicName: string,
  count: number,
  withinLimits: boolean,
  messagesOf: () => readonly PublishInput[],
  raw: Buffer | undefined,
): Promise<string[]> {
  parseName(topicName, 'topics');
  if (!withinLimits) checkPublish(messagesOf());
  const topic = s.topics.get(topicName);
  if (!topic) throw notFound(shortName(topicName));
  // A topic with a schema stamps its messages with the schema's attributes (the subscriber's
  // client decodes by them); they are logged as stored, not as the request received them.
  if (topic.schemaSettings) {
    const extra = schemaAttributes(topic.schemaSettings, s.schemas.get(topic.schemaSettings.schema));
    const stamped = messagesOf().map((m) => ({
      ...m,
      attributes: { ...m.attributes, ...extra },
      plain: false,
    }));
    messagesOf = () => stamped;
    raw = undefined;
  }
  const now = Date.now();
  const firstId = s.nextId;
  // Stored forms are needed to log without `raw` and to fan out; a topic without live
  // subscriptions logged from `raw` needs neither, so its messages are not built.
  let keep = !raw;
  for (const sub of s.topicSubs.get(topicName) ?? []) if (!sub.resource.detached) keep = true;
  for (const snap of s.snapshots.values()) if (snap.resource.topic === topicName) keep = true;
  const messages: StoredMessage[] = [];
  const inputs = keep ? messagesOf() : [];
  const ids: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const id = s.nextId++;
    const idText = String(id);
    if (keep) messages.push(storedMessage(inputs[i] as PublishInput, id, now, idText));
    ids[i] = idText;
  }
  const touched = messages.length > 0 ? s.fanOut(topicName, messages) : [];
  if (raw) await s.appendFramed(() => frameParts([publishRawHead(firstId, now), raw]));
  else await s.append({ type: REC.PUBLISH, topic: topicName, messages });
  // Delivered a moment after the publish is answered, as Pub/Sub's own latency has it: a
  // publisher that awaits its message id before it expects the message (Google's seek tests
  // do) gets the id first.
  if (touched.length > 0) {
    const timer = setTimeout(() => {
      for (const sub of touched) scheduleDispatch(s, sub);
    }, PUBLISH_TO_DELIVERY_MS);
    timer.unref();
  }
  return ids;
}
