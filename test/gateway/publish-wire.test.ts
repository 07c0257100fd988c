/**
 * adapters/publish-wire.ts: the hand-encoded Publish request decodes, with Google's own generated
 * classes, to exactly the messages given (data, attributes in any script and size), and a
 * PublishResponse encoded by them decodes to its ids.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { decodePublishResponse, encodePublishRequest } from '../../adapters/publish-wire.ts';
import type { OutgoingMessage } from '../../adapters/publisher.ts';

interface Generated<T> {
  decode(bytes: Uint8Array): T;
  encode(value: T): { finish(): Uint8Array };
  toObject(value: T, options: { bytes: typeof Buffer }): T;
}
// The Pub/Sub client's generated protobuf classes (protobufjs static code; untyped here).
const protos = createRequire(import.meta.url)('@google-cloud/pubsub/build/protos/protos.js') as {
  google: {
    pubsub: {
      v1: {
        PublishRequest: Generated<{
          topic: string;
          messages: { data?: Buffer; attributes?: Record<string, string> }[];
        }>;
        PublishResponse: Generated<{ messageIds: string[] }>;
      };
    };
  };
};
const { PublishRequest, PublishResponse } = protos.google.pubsub.v1;

describe('publish wire: hand-encoded Publish calls', () => {
  it('encodes a request Google’s generated classes decode to the same topic, data and attributes', () => {
    const messages: OutgoingMessage[] = [
      {
        data: Buffer.from('{"event_name":"view_content"}'),
        attributes: { event_name: 'view_content', source: 'gateway' },
      },
      { data: Buffer.from('x'.repeat(200_000)), attributes: {} },
      { data: Buffer.from('{"a":"ünïcødé ✓ 🙂"}'), attributes: { clé: 'välue 🙂', empty: '' } },
      { data: Buffer.alloc(0), attributes: { only: 'attributes' } },
    ];
    const topic = 'projects/p-1/topics/events';
    const decoded = PublishRequest.toObject(PublishRequest.decode(encodePublishRequest(topic, messages)), {
      bytes: Buffer,
    });
    assert.equal(decoded.topic, topic);
    assert.equal(decoded.messages.length, messages.length);
    decoded.messages.forEach((m, i) => {
      const want = messages[i] as OutgoingMessage;
      assert.deepEqual(Buffer.from(m.data ?? []), want.data, `data of message ${i}`);
      assert.deepEqual({ ...(m.attributes ?? {}) }, { ...want.attributes }, `attributes of message ${i}`);
    });
  });

  it('encodes 1000 messages byte for byte as the generated encoder does', () => {
    const messages = Array.from({ length: 1000 }, (_, i) => ({
      data: Buffer.from(JSON.stringify({ event_name: 'purchase', i })),
      attributes: { event_name: 'purchase', event_id: `id-${i}`, schema_version: '1' },
    }));
    const ours = encodePublishRequest('projects/p-1/topics/events', messages);
    const theirs = PublishRequest.encode({ topic: 'projects/p-1/topics/events', messages }).finish();
    assert.deepEqual(ours, Buffer.from(theirs));
  });

  it('decodes the message ids of a PublishResponse', () => {
    const ids = ['1', '42', 'ü-9'.repeat(100)];
    assert.deepEqual(
      decodePublishResponse(Buffer.from(PublishResponse.encode({ messageIds: ids }).finish())),
      ids,
    );
    assert.deepEqual(decodePublishResponse(Buffer.alloc(0)), []);
    assert.throws(() => decodePublishResponse(Buffer.from([0x0a, 0x05, 0x31])), /truncated/);
  });
});
