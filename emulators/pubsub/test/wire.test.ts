/** The hand-written codecs agree with the protos the client uses (protobufjs from @google-cloud/pubsub). */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { connect } from 'node:http2';
import { protos } from '@google-cloud/pubsub';
import { decodeRecord, publishRawHead, storedMessage } from '../codec.ts';
import { Engine } from '../engine.ts';
import { CONNECTION_WINDOW, STREAM_WINDOW } from '../grpc.ts';
import { startPubSubEmulator } from '../server.ts';
import type { Delivery } from '../types.ts';
import { decodePublishRequest, encodePublishResponse, encodeStreamingPullResponse } from '../wire.ts';

import { tempDir } from './support/harness.ts';

const v1 = protos.google.pubsub.v1;

describe('pubsub emulator wire codecs', () => {
  it('vouches for a request from its bytes only when checkPublish would pass it', () => {
    const encode = (messages: protos.google.pubsub.v1.IPubsubMessage[]): Buffer =>
      Buffer.from(
        v1.PublishRequest.encode(
          v1.PublishRequest.fromObject({ topic: 'projects/p/topics/t', messages }),
        ).finish(),
      );
    const passes = (buf: Buffer): boolean => {
      try {
        Engine.checkPublish(decodePublishRequest(buf).messages);
        return true;
      } catch {
        return false;
      }
    };
    const attrs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    // A 200-byte key of invalid UTF-8 decodes to 200 U+FFFD, 600 bytes: over the 256-byte limit.
    const invalidKey = encode([{ attributes: { ['a'.repeat(200)]: 'v' } }]);
    invalidKey.fill(0xff, invalidKey.indexOf('a'.repeat(200)), invalidKey.indexOf('a'.repeat(200)) + 200);
    const cases: [string, Buffer, boolean][] = [
      [
        'typical',
        encode([{ data: Buffer.from('x'), attributes: { a: '1', b: 'ü' } }, { data: Buffer.from('y') }]),
        true,
      ],
      [
        'same ordering key',
        encode([
          { data: Buffer.from('x'), orderingKey: 'k' },
          { data: Buffer.from('y'), orderingKey: 'k' },
        ]),
        true,
      ],
      ['long valid UTF-8 key', encode([{ attributes: { ['é'.repeat(128)]: 'v' } }]), true],
      ['100 attributes', encode([{ attributes: attrs(100) }]), true],
      ['no messages', encode([]), false],
      ['1001 messages', encode(Array.from({ length: 1001 }, () => ({ data: Buffer.from('x') }))), false],
      ['empty message', encode([{ data: Buffer.from('x') }, {}]), false],
      ['101 attributes', encode([{ attributes: attrs(101) }]), false],
      ['empty key', encode([{ attributes: { '': 'v' } }]), false],
      ['goog key', encode([{ attributes: { googx: 'v' } }]), false],
      ['key of 257 bytes', encode([{ attributes: { ['k'.repeat(257)]: 'v' } }]), false],
      ['value of 1025 bytes', encode([{ attributes: { k: 'v'.repeat(1025) } }]), false],
      [
        'ordering key of 1025 bytes',
        encode([{ data: Buffer.from('x'), orderingKey: 'o'.repeat(1025) }]),
        false,
      ],
      [
        'two ordering keys',
        encode([
          { data: Buffer.from('x'), orderingKey: 'a' },
          { data: Buffer.from('y'), orderingKey: 'b' },
        ]),
        false,
      ],
      ['a message over 10 MB', encode([{ data: Buffer.alloc(10_000_001) }]), false],
      [
        'a request over 10 MB',
        encode([{ data: Buffer.alloc(6_000_000) }, { data: Buffer.alloc(6_000_000) }]),
        false,
      ],
      ['invalid UTF-8 key', invalidKey, false],
    ];
    for (const [name, buf, valid] of cases) {
      const req = decodePublishRequest(buf);
      assert.equal(passes(buf), valid, `${name}: checkPublish`);
      // Vouched for exactly when valid here (the scan may also decline a valid one: then checkPublish judges).
      assert.equal(req.withinLimits, valid, `${name}: withinLimits`);
      assert.equal(req.count, req.messages.length, `${name}: count`);
    }
  });

  it('decodes a PublishRequest as the client encodes it, skipping fields it does not use', () => {
    const buf = Buffer.from(
      v1.PublishRequest.encode(
        v1.PublishRequest.fromObject({
          topic: 'projects/p/topics/t',
          messages: [
            {
              data: Buffer.from('héllo'),
              attributes: { a: '1', ключ: 'значение' },
              orderingKey: 'k',
              messageId: 'ignored',
              publishTime: { seconds: 5, nanos: 6 },
            },
            { attributes: { only: 'attrs' } },
            { data: Buffer.alloc(300, 7) },
          ],
        }),
      ).finish(),
    );
    const got = decodePublishRequest(buf);
    assert.equal(got.topic, 'projects/p/topics/t');
    assert.equal(got.messages.length, 3);
    assert.equal(got.messages[0]?.data.toString(), 'héllo');
    assert.deepEqual(got.messages[0]?.attributes, { a: '1', ключ: 'значение' });
    assert.equal(got.messages[0]?.orderingKey, 'k');
    assert.equal(got.messages[1]?.data.length, 0);
    assert.deepEqual(got.messages[1]?.attributes, { only: 'attrs' });
    assert.deepEqual(got.messages[2]?.data, Buffer.alloc(300, 7));
  });

  it('encodes a PublishResponse the client decodes', () => {
    const decoded = v1.PublishResponse.decode(
      encodePublishResponse({ messageIds: ['1', '22', '12345678901'] }),
    );
    assert.deepEqual(decoded.messageIds, ['1', '22', '12345678901']);
  });

  it('encodes a StreamingPullResponse the client decodes', () => {
    const deliveries: Delivery[] = [
      {
        ackId: '7-2',
        deliveryAttempt: 2,
        attempt: 2,
        message: {
          id: 7,
          publishTime: 1_767_225_600_123,
          data: Buffer.from('x'.repeat(200)),
          attributes: { kind: 'a', é: 'ü' },
          orderingKey: 'user-1',
          size: 0,
        },
      },
      {
        ackId: '8-1',
        deliveryAttempt: 0,
        attempt: 1,
        message: {
          id: 8,
          publishTime: 1_767_225_600_000,
          data: Buffer.alloc(0),
          attributes: { k: 'v' },
          orderingKey: '',
          size: 0,
        },
      },
    ];
    const res = v1.StreamingPullResponse.decode(
      encodeStreamingPullResponse(deliveries, { exactlyOnce: false, ordering: true }),
    );
    assert.equal(res.receivedMessages?.length, 2);
    const [a, b] = res.receivedMessages ?? [];
    assert.equal(a?.ackId, '7-2');
    assert.equal(a?.deliveryAttempt, 2);
    assert.equal(Buffer.from(a?.message?.data ?? []).toString(), 'x'.repeat(200));
    assert.deepEqual({ ...a?.message?.attributes }, { kind: 'a', é: 'ü' });
    assert.equal(a?.message?.messageId, '7');
    assert.equal(String(a?.message?.publishTime?.seconds), '1767225600');
    assert.equal(a?.message?.publishTime?.nanos, 123_000_000);
    assert.equal(a?.message?.orderingKey, 'user-1');
    assert.equal(b?.ackId, '8-1');
    assert.equal(b?.deliveryAttempt, 0);
    assert.equal(b?.message?.data?.length ?? 0, 0);
    assert.equal(b?.message?.publishTime?.nanos ?? 0, 0);
    assert.equal(res.subscriptionProperties?.messageOrderingEnabled, true);
    assert.equal(res.subscriptionProperties?.exactlyOnceDeliveryEnabled ?? false, false);
  });
});

describe('pubsub emulator: messages delivered as the publisher encoded them', () => {
  const request = (messages: protos.google.pubsub.v1.IPubsubMessage[]): Buffer =>
    Buffer.from(
      v1.PublishRequest.encode(
        v1.PublishRequest.fromObject({ topic: 'projects/p/topics/t', messages }),
      ).finish(),
    );
  const pull = (messages: ReturnType<typeof storedMessage>[]) =>
    v1.StreamingPullResponse.decode(
      encodeStreamingPullResponse(
        messages.map((message, i) => ({ ackId: `${message.id}-1`, deliveryAttempt: i, attempt: 1, message })),
        { exactlyOnce: false, ordering: false },
      ),
    ).receivedMessages ?? [];

  it('keeps the bytes of a plain message and completes them with the id and publish time', () => {
    const req = decodePublishRequest(
      request([
        { data: Buffer.from('héllo'), attributes: { a: '1', ключ: 'значение' }, orderingKey: 'k' },
        { attributes: { only: 'attrs' } },
        { data: Buffer.alloc(5000, 9) },
      ]),
    );
    const ids = [9_007_199_254_740_000, 2, 300];
    const stored = req.messages.map((m, i) => storedMessage(m, ids[i] as number, 1_767_225_600_123 + i));
    assert.ok(stored.every((m) => m.pb !== undefined));
    assert.equal(stored[0]?.data.toString(), 'héllo');
    const got = pull(stored);
    assert.equal(got.length, 3);
    const [a, b, c] = got;
    assert.equal(a?.ackId, '9007199254740000-1');
    assert.equal(a?.deliveryAttempt ?? 0, 0);
    assert.equal(a?.message?.messageId, '9007199254740000');
    assert.equal(Buffer.from(a?.message?.data ?? []).toString(), 'héllo');
    assert.deepEqual({ ...a?.message?.attributes }, { a: '1', ключ: 'значение' });
    assert.equal(a?.message?.orderingKey, 'k');
    assert.equal(String(a?.message?.publishTime?.seconds), '1767225600');
    assert.equal(a?.message?.publishTime?.nanos, 123_000_000);
    assert.equal(b?.deliveryAttempt, 1);
    assert.equal(b?.message?.messageId, '2');
    assert.equal(b?.message?.data?.length ?? 0, 0);
    assert.deepEqual({ ...b?.message?.attributes }, { only: 'attrs' });
    assert.equal(b?.message?.publishTime?.nanos, 124_000_000);
    assert.equal(c?.message?.messageId, '300');
    assert.deepEqual(Buffer.from(c?.message?.data ?? []), Buffer.alloc(5000, 9));
  });

  it('encodes field by field a message whose publisher set message_id or publish_time', () => {
    const req = decodePublishRequest(
      request([
        { data: Buffer.from('x'), messageId: 'mine', publishTime: { seconds: 5, nanos: 7 } },
        { data: Buffer.from('y'), publishTime: { nanos: 7 } },
      ]),
    );
    const stored = req.messages.map((m, i) => storedMessage(m, 40 + i, 1_767_225_600_000));
    assert.ok(stored.every((m) => m.pb === undefined));
    for (const [i, r] of pull(stored).entries()) {
      assert.equal(r.message?.messageId, String(40 + i));
      assert.equal(String(r.message?.publishTime?.seconds), '1767225600');
      assert.equal(r.message?.publishTime?.nanos ?? 0, 0);
    }
  });

  it('completes the kept bytes the same way when a logged publish is replayed', () => {
    const raw = request([{ data: Buffer.from('z'), attributes: { k: 'v' } }, { data: Buffer.from('w') }]);
    const rec = decodeRecord(Buffer.concat([publishRawHead(77, 1_767_225_600_500), raw]));
    assert.equal(rec.type, 5);
    const messages = rec.type === 5 ? rec.messages : [];
    const live = decodePublishRequest(raw).messages.map((m, i) =>
      storedMessage(m, 77 + i, 1_767_225_600_500),
    );
    assert.deepEqual(
      messages.map((m) => m.pb),
      live.map((m) => m.pb),
    );
    const [a, b] = pull(messages);
    assert.equal(a?.message?.messageId, '77');
    assert.deepEqual({ ...a?.message?.attributes }, { k: 'v' });
    assert.equal(b?.message?.messageId, '78');
    assert.equal(Buffer.from(b?.message?.data ?? []).toString(), 'w');
  });
});

describe('pubsub emulator HTTP/2 flow control', () => {
  it('advertises wide receive windows, so a 1000-message Publish is not sent 64 KiB at a time', async () => {
    const dataDir = tempDir();
    const emulator = await startPubSubEmulator({ port: 0, dataDir, fsync: 'none' });
    const session = connect(emulator.url);
    try {
      // The windows come in a SETTINGS frame and a connection WINDOW_UPDATE after the initial
      // SETTINGS; wait (bounded) until both are seen.
      const deadline = Date.now() + 5000;
      while (
        (session.remoteSettings?.initialWindowSize !== STREAM_WINDOW ||
          (session.state.remoteWindowSize ?? 0) < CONNECTION_WINDOW) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.equal(session.remoteSettings.initialWindowSize, STREAM_WINDOW);
      assert.ok((session.state.remoteWindowSize ?? 0) >= CONNECTION_WINDOW);
    } finally {
      session.destroy();
      await emulator.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
