import assert from 'node:assert/strict';
import { definedEvent, definedEvents } from '../../core/definitions/defined-events.ts';
import { sha256 } from '../../core/pii.ts';
import { POISON_STORE_SUBSCRIPTION, plan } from '../../core/plan.ts';
import { INSERT_ID_WINDOW_MS, type StoredQuestion } from '../../core/store/copies.ts';
import { decodeStorePush, type PubSubMessage } from '../../core/store/message.ts';
import { malformedPushRow } from '../../core/store/rows.ts';
import { messageRows, storeConfig, storeMessages, topicOf } from '../../core/store/store.ts';
import type { InsertRow, RowRejection, RowWriter } from '../../core/warehouse/rows.ts';
import type { Settings } from '../../schemas/settings.ts';

const settings: Settings = {
  name: 'test',
  project: 'test-project',
  region: 'europe-west1',
  topics: ['backend_events'],
};
const config = storeConfig(settings, plan(settings));
const NOW = Date.parse('2026-03-01T12:00:00.500Z');
const PUBLISHED = '2026-03-01T12:00:00.123Z';

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64');

function pushBody(data: unknown, extra: Record<string, unknown> = {}) {
  return {
    message: {
      data: b64(data),
      attributes: { origin: 'test' },
      messageId: '1001',
      message_id: '1001',
      publishTime: PUBLISHED,
      publish_time: PUBLISHED,
    },
    subscription: 'projects/test-project/subscriptions/events-store',
    deliveryAttempt: 2,
    ...extra,
  };
}

function message(data: unknown, overrides: Partial<PubSubMessage> = {}): PubSubMessage {
  const decoded = decodeStorePush(pushBody(data));
  assert.ok(decoded.ok);
  return { ...decoded.message, ...overrides };
}

const viewContent = {
  event_name: 'view_content',
  content_name: 'Shoe',
  content_type: 'product',
  value: 12.5,
};

/** A message's rows (no suppression list here: never `suppressed`). */
function rowsOf(...args: Parameters<typeof messageRows>) {
  const o = messageRows(...args);
  if (o.kind === 'suppressed') throw new Error('suppressed without a list');
  return o;
}

describe('storage: push bodies and rows (core/store/store.ts)', () => {
  it('decodes a classic push body, keeping deliveryAttempt, subscription, attributes and publishTime', () => {
    const decoded = decodeStorePush(pushBody(viewContent));
    assert.ok(decoded.ok);
    assert.equal(decoded.message.messageId, '1001');
    assert.equal(decoded.message.publishTime, PUBLISHED);
    assert.equal(decoded.message.deliveryAttempt, 2);
    assert.equal(decoded.message.subscription, 'projects/test-project/subscriptions/events-store');
    assert.deepEqual(decoded.message.attributes, { origin: 'test' });
    assert.deepEqual(JSON.parse(Buffer.from(decoded.message.data).toString()), viewContent);
  });

  it('accepts the snake_case spellings alone and counts a missing deliveryAttempt as the first', () => {
    const decoded = decodeStorePush({
      message: { data: b64(viewContent), message_id: '7', publish_time: PUBLISHED },
      subscription: 's',
    });
    assert.ok(decoded.ok);
    assert.equal(decoded.message.messageId, '7');
    assert.equal(decoded.message.deliveryAttempt, 1);
  });

  const malformed: [string, unknown, string][] = [
    ['a string', 'hello', '(root)'],
    ['an object without message', { subscription: 's' }, 'message'],
    [
      'a message without messageId',
      { message: { data: '', publishTime: PUBLISHED }, subscription: 's' },
      'message.messageId',
    ],
    [
      'bad base64',
      { message: { data: '!!!', messageId: '1', publishTime: PUBLISHED }, subscription: 's' },
      'message.data',
    ],
    [
      'non-string attributes',
      { message: { attributes: { a: 1 }, messageId: '1', publishTime: PUBLISHED }, subscription: 's' },
      'message.attributes.a',
    ],
    ['no publishTime', { message: { messageId: '1' }, subscription: 's' }, 'message.publishTime'],
  ];
  for (const [what, body, field] of malformed) {
    it(`reports ${what} as a field violation on ${field}`, () => {
      const decoded = decodeStorePush(body);
      assert.equal(decoded.ok, false);
      if (!decoded.ok)
        assert.ok(
          decoded.violations.some((v) => v.field === field),
          JSON.stringify(decoded.violations),
        );
    });
  }

  it('resolves the topic from the store subscription, or a dead letter from its source subscription', () => {
    assert.equal(topicOf(message(viewContent), config), 'events');
    const backend = message(viewContent, { subscription: 'projects/p/subscriptions/backend_events-store' });
    assert.equal(topicOf(backend, config), 'backend_events');
    const dead = message(viewContent, {
      subscription: 'projects/p/subscriptions/backend_events-store-dead-letter-backlog',
      attributes: { CloudPubSubDeadLetterSourceSubscription: 'backend_events-store' },
    });
    assert.equal(topicOf(dead, config), 'backend_events');
    // A producer-set attribute never decides the topic column (the forged `admin`).
    const forged = message(viewContent, { attributes: { CloudPubSubDeadLetterSourceSubscription: 'admin' } });
    assert.equal(topicOf(forged, config), 'events');
    const forgedDead = message(viewContent, {
      subscription: 'projects/p/subscriptions/events-store-dead-letter-backlog',
      attributes: { CloudPubSubDeadLetterSourceSubscription: 'backend_events-store' },
    });
    assert.equal(topicOf(forgedDead, config), 'events');
    const out = rowsOf(forged, config, NOW);
    assert.equal(out.row.json['topic'], 'events');
  });

  it('turns a native event into an events row: event_id from the messageId, event_time from the publishTime', () => {
    const out = rowsOf(message(viewContent), config, NOW);
    assert.equal(out.kind, 'event');
    if (out.kind !== 'event') return;
    // The insertId is the payload digest (core/identity.ts), carried in the row and the event.
    assert.match(out.row.insertId, /^[0-9a-f]{64}$/);
    const json = out.row.json;
    assert.equal(json['payload_digest'], out.row.insertId);
    assert.equal(out.event.payload_digest, out.row.insertId);
    assert.equal(json['event_id'], '1001');
    assert.equal(json['event_time'], PUBLISHED);
    assert.equal(json['received_at'], PUBLISHED);
    assert.equal(json['stored_at'], new Date(NOW).toISOString());
    assert.equal(json['topic'], 'events');
    assert.equal(json['message_id'], '1001');
    assert.equal(json['schema_version'], 1);
    assert.deepEqual(JSON.parse(json['event_data'] as string), {
      content_name: 'Shoe',
      content_type: 'product',
      value: 12.5,
    });
    // store filled the id and the time in, and says so as the gateway does for its own.
    assert.deepEqual(JSON.parse(json['attributes'] as string), {
      origin: 'test',
      server_fields: 'event_id,event_time',
    });
    assert.equal(out.event.topic, 'events');
    assert.equal(out.event.received_at, PUBLISHED);
  });

  it('gives a second copy of the same content the same insertId, whatever its field order or message', () => {
    const sent = { ...viewContent, event_id: 'evt-1', event_time: '2026-03-01T11:00:00Z' };
    const out = rowsOf(message(sent), config, NOW);
    assert.equal(out.kind, 'event');
    assert.equal(out.row.json['event_id'], 'evt-1');
    assert.equal(out.row.json['event_time'], '2026-03-01T11:00:00.000Z');
    const reordered = Object.fromEntries(Object.entries(sent).reverse());
    const again = rowsOf(message(reordered, { messageId: '2002' }), config, NOW + 90_000);
    assert.equal(again.row.insertId, out.row.insertId);
  });

  it('takes a dead letter’s original publish time, so a late store of it is the same event; a forged attribute elsewhere is ignored', () => {
    const original = '2026-03-01T11:59:00.000Z';
    const attributes = { CloudPubSubDeadLetterSourceTopicPublishTime: original };
    const direct = rowsOf(message(viewContent), config, NOW);
    const dead = rowsOf(
      message(viewContent, {
        subscription: 'projects/p/subscriptions/events-store-dead-letter-ledger',
        publishTime: PUBLISHED,
        attributes,
      }),
      config,
      NOW,
    );
    assert.equal(dead.row.json['event_time'], original);
    assert.equal(dead.row.json['received_at'], original);
    const forged = rowsOf(message(viewContent, { attributes }), config, NOW);
    assert.equal(forged.row.json['event_time'], PUBLISHED);
    assert.equal(direct.row.json['event_time'], PUBLISHED);
  });

  it('gives another event that reuses an event_id its own insertId, so the warehouse keeps both', () => {
    // Segment's spec examples share one messageId between a page and an identify call; here a
    // view_content and, later, a purchase with the same event_id.
    const first = rowsOf(
      message({ ...viewContent, event_id: 'shared-1', event_time: '2026-03-01T11:00:00Z' }),
      config,
      NOW,
    );
    const second = rowsOf(
      message({
        event_name: 'purchase',
        event_id: 'shared-1',
        event_time: '2026-03-01T11:00:03Z',
        transaction_id: 'T1',
        value: 10,
        currency: 'EUR',
      }),
      config,
      NOW,
    );
    const sameTime = rowsOf(
      message({ ...viewContent, value: 99, event_id: 'shared-1', event_time: '2026-03-01T11:00:00Z' }),
      config,
      NOW,
    );
    assert.equal(first.kind, 'event');
    assert.equal(second.kind, 'event');
    assert.equal(sameTime.kind, 'event');
    const ids = new Set([first.row.insertId, second.row.insertId, sameTime.row.insertId]);
    assert.equal(ids.size, 3);
  });

  it('sends an invalid event to invalid_events with every error and the raw payload', () => {
    const bad = { event_name: 'view_content', event_id: 'e-bad', content_type: 7 };
    const out = rowsOf(message(bad), config, NOW);
    assert.equal(out.kind, 'invalid');
    const json = out.row.json;
    assert.equal(json['reason'], 'invalid_event');
    assert.equal(json['event_id'], 'e-bad');
    assert.equal(json['event_name'], 'view_content');
    assert.equal(json['payload'], JSON.stringify(bad));
    assert.equal(json['message_id'], '1001');
    assert.equal(json['subscription'], 'projects/test-project/subscriptions/events-store');
    const paths = (json['errors'] as { path: string }[]).map((e) => e.path).sort();
    assert.deepEqual(paths, ['content_name', 'content_type']);
    assert.equal(out.row.insertId, '1001/invalid');
  });

  it('keeps data that is not JSON, or not UTF-8, as not_json', () => {
    const text = rowsOf(message('not json'), config, NOW);
    assert.equal(text.row.json['reason'], 'not_json');
    assert.equal(text.row.json['payload'], 'not json');
    const binary = rowsOf(message('x', { data: Uint8Array.from([0xff, 0xfe, 0x00]) }), config, NOW);
    assert.equal(binary.row.json['reason'], 'not_json');
    assert.equal(binary.row.json['payload'], Buffer.from([0xff, 0xfe, 0x00]).toString('base64'));
  });

  it('follows unknown_events: store keeps custom events, reject sends them to invalid_events', () => {
    const custom = { event_name: 'quote_requested', amount: 3 };
    const stored = rowsOf(message(custom), config, NOW);
    assert.equal(stored.kind, 'event');
    assert.equal(stored.row.json['schema_version'], 0);
    const strict = { ...settings, unknown_events: 'reject' as const };
    const rejected = rowsOf(message(custom), storeConfig(strict, plan(strict)), NOW);
    assert.equal(rejected.kind, 'invalid');
  });

  it('applies the PII policy to the warehouse row only: hashed and dropped context fields', () => {
    const pii = { ...settings, pii: { hash_in_warehouse: ['user.email'], drop: ['device.ip'] } };
    const out = rowsOf(
      message({
        ...viewContent,
        user: { email: ' A@B.example ' },
        device: { ip: '203.0.113.9', locale: 'en' },
      }),
      storeConfig(pii, plan(pii)),
      NOW,
    );
    assert.equal(out.kind, 'event');
    if (out.kind !== 'event') return;
    assert.match((out.row.json['user'] as { email: string }).email, /^[0-9a-f]{64}$/);
    assert.deepEqual(out.row.json['device'], { locale: 'en' });
    assert.equal(out.event.user?.email, ' A@B.example ', 'the decision layer still sees the event as sent');
  });

  it('applies the PII policy to invalid_events.payload too, keeping its shape', () => {
    const pii = {
      ...settings,
      pii: { hash_in_warehouse: ['user.email', 'user.phone'], drop: ['device.ip'] },
    };
    const cfg = storeConfig(pii, plan(pii));
    const raw = {
      event_name: 'view_content',
      user: { email: 'ann@example.com', phone: '+4915112345678', country: 'de' },
      device: { ip: '203.0.113.9', locale: 'en' },
    };
    const out = rowsOf(message(raw), cfg, NOW);
    assert.equal(out.kind, 'invalid', 'content_name and content_type are missing');
    const payload = JSON.parse(out.row.json['payload'] as string);
    assert.deepEqual(Object.keys(payload), ['event_name', 'user', 'device']);
    assert.equal(payload.user.email, sha256('ann@example.com'));
    assert.equal(payload.user.phone, sha256('+4915112345678'));
    assert.equal(payload.user.country, 'de');
    assert.deepEqual(payload.device, { locale: 'en' });
    // Text that is not JSON has no fields to find: emails and phone numbers are replaced.
    const text = rowsOf(message('contact ann@example.com or +49 151 1234 5678 {'), cfg, NOW);
    assert.equal(text.row.json['payload'], 'contact REDACTED or REDACTED {');
    // Without a policy the payload is kept byte for byte.
    const plain = rowsOf(message(raw), config, NOW);
    assert.equal(plain.row.json['payload'], JSON.stringify(raw));
  });

  it('hashes or drops event fields named event_data.<field>, in events and in invalid payloads', () => {
    const pii = {
      ...settings,
      pii: { hash_in_warehouse: ['event_data.customer_email'], drop: ['event_data.notes'] },
    };
    const cfg = storeConfig(pii, plan(pii));
    const ok = rowsOf(message({ ...viewContent, customer_email: 'Ann@Example.com', notes: 'x' }), cfg, NOW);
    assert.equal(ok.kind, 'event');
    const data = JSON.parse(ok.row.json['event_data'] as string);
    assert.equal(data.customer_email, sha256('ann@example.com'));
    assert.equal(data.notes, undefined);
    // In the raw payload of an invalid event the field may be top-level, as the producer sent it.
    const bad = rowsOf(
      message({ event_name: 'view_content', customer_email: 'ann@example.com', notes: 'x' }),
      cfg,
      NOW,
    );
    assert.equal(bad.kind, 'invalid');
    const payload = JSON.parse(bad.row.json['payload'] as string);
    assert.deepEqual(payload, { event_name: 'view_content', customer_email: sha256('ann@example.com') });
  });

  it('keeps a stray request body with a content-hash insertId', () => {
    const a = malformedPushRow('{"hello":1}', [{ field: 'message', description: 'is required' }], NOW);
    const b = malformedPushRow('{"hello":1}', [], NOW);
    assert.equal(a.insertId, b.insertId);
    assert.equal(a.json['reason'], 'malformed_push');
    assert.equal(a.json['payload'], '{"hello":1}');
  });
});

/** A writer that records rows and refuses those the test names. */
function recordingWriter(refuse: (table: string, row: InsertRow) => string | undefined, fail?: Error) {
  const written: Record<string, InsertRow[]> = {};
  const writer: RowWriter = {
    async write(table, rows) {
      if (fail) throw fail;
      const rejections: RowRejection[] = [];
      rows.forEach((row, index) => {
        const reason = refuse(table, row);
        if (reason) rejections.push({ index, reason: 'invalid', message: reason });
        else {
          written[table] ??= [];
          written[table].push(row);
        }
      });
      return rejections;
    },
  };
  return { writer, written };
}

describe('storage: storeMessages', () => {
  const deps = (writer: RowWriter) => ({ writer, config, now: () => NOW });

  it('writes events and invalid events to their tables and returns the stored events', async () => {
    const { writer, written } = recordingWriter(() => undefined);
    const outcome = await storeMessages(
      [message(viewContent), message({ event_name: 'view_content' }, { messageId: '1002' })],
      deps(writer),
    );
    assert.equal(written['events']?.length, 1);
    assert.equal(written['invalid_events']?.length, 1);
    assert.equal(outcome.stored.length, 1);
    assert.equal(outcome.invalid, 1);
  });

  it('moves an event row the warehouse refuses to invalid_events with the reason', async () => {
    const { writer, written } = recordingWriter((table) =>
      table === 'events' ? 'no such field: x.' : undefined,
    );
    const outcome = await storeMessages([message(viewContent)], deps(writer));
    assert.equal(outcome.stored.length, 0);
    const row = written['invalid_events']?.[0];
    assert.equal(row?.json['reason'], 'rejected_by_warehouse');
    assert.deepEqual(row?.json['errors'], [{ path: '(row)', message: 'invalid: no such field: x.' }]);
  });

  it('rejects when the warehouse is unavailable, so nothing is acknowledged', async () => {
    const { writer } = recordingWriter(() => undefined, new Error('ECONNREFUSED'));
    await assert.rejects(storeMessages([message(viewContent)], deps(writer)), /ECONNREFUSED/);
  });

  it('asks the warehouse before writing a late redelivery again, and still fans out what it finds', async () => {
    const { writer, written } = recordingWriter(() => undefined);
    // The producer's own id and time: every copy's row is alike, no claim is needed.
    const timed = { ...viewContent, event_id: '1001', event_time: PUBLISHED };
    const asked: StoredQuestion[] = [];
    const found = new Set<string>();
    const alreadyStored = async (q: StoredQuestion) => {
      asked.push(q);
      return found.has(q.payload_digest);
    };
    // Within the insertId window (attempt 2, a second after publishing): written, not asked.
    await storeMessages([message(timed)], { ...deps(writer), alreadyStored });
    assert.equal(asked.length, 0);
    assert.equal(written['events']?.length, 1);
    // Past the window: asked; found, so no second row, yet the event is in the outcome.
    const digest = written['events']?.[0]?.insertId as string;
    found.add(digest);
    const late = { ...deps(writer), now: () => NOW + INSERT_ID_WINDOW_MS + 1000, alreadyStored };
    const outcome = await storeMessages([message(timed)], late);
    assert.equal(asked.length, 1);
    assert.deepEqual(asked[0], { event_id: '1001', event_time: PUBLISHED, payload_digest: digest });
    assert.equal(written['events']?.length, 1, 'no second row');
    assert.deepEqual(
      outcome.stored.map((e) => e.payload_digest),
      [digest],
    );
    // Not found (or unsure): written again, and events_dedup folds the copy.
    found.clear();
    await storeMessages([message(timed)], late);
    assert.equal(written['events']?.length, 2);
    // A first attempt is never late, however old.
    await storeMessages([message(timed, { deliveryAttempt: 1 })], late);
    assert.equal(asked.length, 2);
  });

  it('keeps a poison message as an invalid_events row without reading it as an event', async () => {
    const { writer, written } = recordingWriter(() => undefined);
    const poison = message(viewContent, {
      subscription: `projects/test-project/subscriptions/${POISON_STORE_SUBSCRIPTION}`,
      attributes: { CloudPubSubDeadLetterSourceSubscription: 'deliveries-meta-dead-letter-ledger' },
    });
    const outcome = await storeMessages([poison], deps(writer));
    assert.equal(outcome.stored.length, 0, 'nothing is fanned out');
    assert.equal(written['events'], undefined);
    const row = written['invalid_events']?.[0]?.json;
    assert.equal(row?.['reason'], 'poison');
    assert.equal(row?.['payload'], JSON.stringify(viewContent));
    assert.match(
      JSON.stringify(row?.['errors']),
      /deliveries-meta-dead-letter-ledger could not record after \d+ attempts/,
    );
  });
});

describe('storage: defined events in store', () => {
  const v1 = definedEvent('quote_requested', '1.0', {
    fields: [
      { name: 'amount', type: 'number', required: true },
      { name: 'contact', type: 'string', pii: true },
    ],
  });
  const v2 = definedEvent('quote_requested', '2.0', {
    fields: [
      { name: 'amount', type: 'string', required: true },
      { name: 'contact', type: 'string', pii: true },
    ],
  });
  const defined = definedEvents([v2], [v1]);
  const quote = { event_name: 'quote_requested', amount: 12, contact: ' Ana@Example.com ' };

  it('re-validates against the stamped version, stores it, and hashes its pii fields', () => {
    const m = message(quote, { attributes: { definition_version: 'quote_requested@1.0' } });
    const r = rowsOf(m, config, NOW, defined);
    assert.equal(r.kind, 'event');
    assert.ok(r.kind === 'event');
    assert.equal(r.row.json['definition_version'], 'quote_requested@1.0');
    assert.equal(r.event.definition_version, 'quote_requested@1.0');
    const data = JSON.parse(String(r.row.json['event_data'])) as Record<string, unknown>;
    assert.equal(data['contact'], sha256('ana@example.com'), 'a pii field is hashed in the warehouse');
    assert.equal(r.event.event_data['contact'], ' Ana@Example.com ', 'the decision layer gets the raw value');
  });

  it('checks an unstamped message (the native path) against the current version', () => {
    const r = rowsOf(message(quote), config, NOW, defined);
    assert.equal(r.kind, 'invalid');
    assert.match(JSON.stringify(r.row.json['errors']), /quote_requested@2\.0/);
  });
});
