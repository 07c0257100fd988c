import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  decodePublishResponse,
  encodePublishRequest,
  type OutgoingMessage,
} from '../../functions/adapters/publisher.ts';

// The official message definitions shipped with @google-cloud/pubsub, read by protobufjs: the
// hand-written encoder must produce exactly what Google's generated client would decode.
const require = createRequire(import.meta.url);
const protobuf = require('protobufjs') as {
  Root: { fromJSON(json: unknown): { lookupType(name: string): ProtoType } };
};
interface ProtoType {
  decode(b: Uint8Array): unknown;
  encode(v: unknown): { finish(): Uint8Array };
  fromObject(v: unknown): unknown;
  toObject(m: unknown, o: Record<string, unknown>): Record<string, unknown>;
}
const root = protobuf.Root.fromJSON(require('@google-cloud/pubsub/build/protos/protos.json'));
const PublishRequest = root.lookupType('google.pubsub.v1.PublishRequest');
const PublishResponse = root.lookupType('google.pubsub.v1.PublishResponse');

describe('publisher wire format (hand-encoded PublishRequest / PublishResponse)', () => {
  it('encodes topic, data and attributes exactly as the official definitions read them', () => {
    const messages: OutgoingMessage[] = [
      { data: Buffer.from('{"event_name":"page_view"}'), attributes: { event_name: 'page_view', a: '' } },
      // Multi-byte UTF-8 in keys and values, a 200 KB body (3-byte length varints), no attributes.
      { data: Buffer.from('é'.repeat(100_000)), attributes: {} },
      {
        data: Buffer.from([0, 1, 2, 255]),
        attributes: { clé: 'välue ✓', ['k'.repeat(200)]: 'v'.repeat(1024) },
      },
    ];
    const bytes = encodePublishRequest('projects/p/topics/events', messages);
    const decoded = PublishRequest.toObject(PublishRequest.decode(bytes), { bytes: Buffer }) as {
      topic: string;
      messages: { data: Buffer; attributes?: Record<string, string> }[];
    };
    assert.equal(decoded.topic, 'projects/p/topics/events');
    assert.equal(decoded.messages.length, 3);
    for (const [i, m] of messages.entries()) {
      assert.ok(Buffer.from(decoded.messages[i]?.data ?? []).equals(m.data), `data of message ${i}`);
      assert.deepEqual(decoded.messages[i]?.attributes ?? {}, m.attributes);
    }
    // Byte for byte what protobufjs writes for the same request.
    const reference = PublishRequest.encode(
      PublishRequest.fromObject({ topic: 'projects/p/topics/events', messages }),
    ).finish();
    assert.ok(Buffer.from(reference).equals(bytes));
  });

  it('decodes message ids in order and skips fields it does not know', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `${i}-${'x'.repeat(i % 150)}`);
    const bytes = Buffer.from(
      PublishResponse.encode(PublishResponse.fromObject({ messageIds: ids })).finish(),
    );
    assert.deepEqual(decodePublishResponse(bytes), ids);
    // An unknown varint field (7) and length-delimited field (9) around one id.
    const extra = Buffer.concat([
      Buffer.from([0x38, 0x96, 0x01, 0x4a, 0x02, 0x68, 0x69]),
      bytes.subarray(0, 4),
    ]);
    assert.deepEqual(decodePublishResponse(extra), ['0-']);
    assert.deepEqual(decodePublishResponse(Buffer.alloc(0)), []);
  });

  it('refuses a truncated response instead of returning fewer ids', () => {
    const bytes = Buffer.from(
      PublishResponse.encode(PublishResponse.fromObject({ messageIds: ['a', 'bb'] })).finish(),
    );
    assert.throws(() => decodePublishResponse(bytes.subarray(0, bytes.length - 1)), /truncated/);
  });
});
