import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { REDELIVERY_RECORD } from '../../core/claims/send-once.ts';
import { Breaker, FAILURES_TO_OPEN, PROBE_EVERY_MS } from '../../core/delivery/breaker.ts';
import { createFanOut } from '../../core/delivery/fan-out.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import {
  type DeliveryMessage,
  decodePush,
  deliveryMessage,
  type PushedMessage,
} from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import type { InboundResponse, OutboundRequest } from '../../core/platforms/driver.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import { signWebhook, verifyWebhookSignature, WEBHOOK_HEADERS } from '../../core/platforms/webhook/driver.ts';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';
import type { Destination } from '../../schemas/settings.ts';
import { memoryClaims } from '../support/memory-claims.ts';

const now = new Date('2026-03-01T12:00:00.000Z');
const stored: StoredEvent = {
  event_name: 'view_content',
  event_id: 'evt-1',
  event_time: '2026-03-01T11:59:00.000Z',
  event_data: { content_name: 'Shoe', content_type: 'product' },
};
const hook: Destination = {
  id: 'hook',
  type: 'webhook',
  base_url: 'http://127.0.0.1:9/',
  config: { path: '/in' },
  secrets: { signing_key: 'HOOK_KEY' },
};

function pushOf(event: StoredEvent, attempt = 1, extra: Record<string, string> = {}): PushedMessage {
  const m = deliveryMessage(event, 'hook');
  const body = {
    message: {
      data: Buffer.from(m.data).toString('base64'),
      attributes: { ...m.attributes, ...extra },
      messageId: 'm-1',
    },
    subscription: 'projects/p/subscriptions/deliveries-hook',
    deliveryAttempt: attempt,
  };
  const decoded = decodePush(body);
  assert.ok(decoded.ok);
  return decoded.push;
}

function deps(
  answer: InboundResponse | (() => InboundResponse),
  secrets: Record<string, string> = { HOOK_KEY: 'k' },
) {
  const sent: { request: OutboundRequest; timeoutMs: number }[] = [];
  const d: ForwardDeps = {
    destinations: [hook],
    driverFor,
    getSecret: async (name) => secrets[name],
    send: async (request, timeoutMs) => {
      sent.push({ request, timeoutMs });
      return typeof answer === 'function' ? answer() : answer;
    },
    now: () => now,
  };
  return { d, sent };
}
const ok = (status: number, body = ''): InboundResponse => ({ kind: 'response', status, headers: {}, body });

describe('forward core (one push → ledger rows and ack)', () => {
  const cases: {
    name: string;
    answer: InboundResponse;
    attempt?: number;
    ack: boolean;
    status: string;
    http?: number;
  }[] = [
    { name: '2xx → delivered, acked', answer: ok(204), ack: true, status: 'delivered', http: 204 },
    { name: '400 → rejected, acked', answer: ok(400, 'bad field'), ack: true, status: 'rejected', http: 400 },
    { name: '404 → rejected', answer: ok(404), ack: true, status: 'rejected', http: 404 },
    { name: '429 → failed, nacked', answer: ok(429), ack: false, status: 'failed', http: 429 },
    { name: '503 → failed, nacked', answer: ok(503), ack: false, status: 'failed', http: 503 },
    {
      name: 'connection error → failed',
      answer: { kind: 'network_error', message: 'ECONNREFUSED' },
      ack: false,
      status: 'failed',
    },
    {
      // Pub/Sub then dead-letters it; the dead-letter ledger subscription writes dead_lettered.
      name: '503 on the last attempt is a failed attempt',
      answer: ok(503),
      attempt: 5,
      ack: false,
      status: 'failed',
    },
    {
      name: '400 on the last attempt stays rejected',
      answer: ok(400),
      attempt: 5,
      ack: true,
      status: 'rejected',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { d } = deps(c.answer);
      const r = await forwardPush(pushOf(stored, c.attempt ?? 1), d);
      assert.equal(r.ack, c.ack);
      assert.equal(r.entries.length, 1);
      const row = r.entries[0]!.row;
      assert.equal(row.status, c.status);
      assert.equal(row.attempt, c.attempt ?? 1);
      assert.equal(row.event_id, 'evt-1');
      assert.equal(row.destination, 'hook');
      assert.equal(row.replay, false);
      if (c.http !== undefined) assert.equal(row.http_status, c.http);
    });
  }

  it('a missing secret is a clear failed reason, nothing sent', async () => {
    const { d, sent } = deps(ok(200), {});
    const r = await forwardPush(pushOf(stored), d);
    assert.equal(r.ack, false);
    assert.equal(r.entries[0]!.row.status, 'failed');
    assert.equal(r.entries[0]!.row.reason, 'secret HOOK_KEY (signing_key) has no value');
    assert.equal(sent.length, 0);
  });

  it('records which identifier kinds the request carried, by name only (match quality)', async () => {
    const { d } = deps(ok(200));
    const known = { ...stored, user_id: 'u-4711', device: { ip: '203.0.113.9' } } as StoredEvent;
    const r = await forwardPush(pushOf(known), d);
    assert.equal(r.entries[0]!.row.status, 'delivered');
    assert.deepEqual(r.entries[0]!.row.identifiers, ['external_id', 'ip']);
    assert.ok(!JSON.stringify(r.entries[0]!.row).includes('203.0.113.9'));
    // A request that was never built carries none: the row says nothing rather than "none".
    const { d: noSecret } = deps(ok(200), {});
    assert.equal((await forwardPush(pushOf(known), noSecret)).entries[0]!.row.identifiers, undefined);
  });

  it('a part the driver left out is named in the delivered row, never silent', async () => {
    const { d } = deps(ok(200));
    const leaving: ForwardDeps = {
      ...d,
      driverFor: (type) => {
        const real = driverFor(type);
        if (!real) return undefined;
        return {
          ...real,
          prepare: (e, c) => {
            const p = real.prepare(e, c);
            return p.ok ? { ...p, dropped: 'left out items[1]' } : p;
          },
        };
      },
    };
    const r = await forwardPush(pushOf(stored), leaving);
    assert.equal(r.entries[0]!.row.status, 'delivered');
    assert.equal(r.entries[0]!.row.reason, 'left out items[1]');
  });

  it('replay attribute → replay rows; a different message id gets a different insertId', async () => {
    const { d } = deps(ok(200));
    const first = await forwardPush(pushOf(stored), d);
    const replayed = await forwardPush({ ...pushOf(stored, 1, { replay: 'true' }), messageId: 'm-2' }, d);
    assert.equal(replayed.entries[0]!.row.replay, true);
    assert.notEqual(first.entries[0]!.insertId, replayed.entries[0]!.insertId);
    // The same push handled twice (a retried ledger write) keeps its insertId.
    assert.equal(first.entries[0]!.insertId, (await forwardPush(pushOf(stored), d)).entries[0]!.insertId);
  });

  it('unknown destination or broken data → rejected and acked', async () => {
    const { d } = deps(ok(200));
    const p = pushOf(stored);
    const r1 = await forwardPush({ ...p, attributes: { ...p.attributes, destination: 'gone' } }, d);
    assert.deepEqual([r1.ack, r1.entries[0]!.row.status], [true, 'rejected']);
    const r2 = await forwardPush({ ...p, data: '{not json' }, d);
    assert.deepEqual(
      [r2.ack, r2.entries[0]!.row.status, r2.entries[0]!.row.event_id],
      [true, 'rejected', 'evt-1'],
    );
  });

  it('on a redelivery, the send-once claim alone says whether it was delivered: no ledger question', async () => {
    const claims = memoryClaims();
    const event = { ...stored, payload_digest: 'd'.repeat(64) };
    const first = { ...pushOf(event, 1, { first: 'true' }), publishTime: now.toISOString() };
    const { d, sent } = deps(ok(200));
    const delivered = await forwardPush(first, { ...d, claims });
    assert.deepEqual([delivered.ack, delivered.entries[0]?.row.status, sent.length], [true, 'delivered', 1]);
    const [record] = claims.records.values();
    assert.equal(record?.fields['status'], 'delivered', 'the first fan-out’s delivery settles a record');
    assert.equal(record?.fields['outcome'], 'HTTP 200: delivered');
    const later = { ...d, claims, now: () => new Date(now.getTime() + 86_400_000) };
    // The same message again (its process stopped after the settle, maybe before the ledger row):
    // its attempt 1's delivery recorded again, same insertId, nothing sent.
    const own = await forwardPush(pushOf(event, 3, { first: 'true' }), later);
    assert.deepEqual(
      [own.ack, own.entries[0]?.row.status, own.entries[0]?.row.attempt, own.entries[0]?.row.http_status],
      [true, 'delivered', 1, 200],
    );
    assert.equal(own.entries[0]?.insertId, delivered.entries[0]?.insertId);
    assert.ok(own.entries[0]?.row.reason?.startsWith(REDELIVERY_RECORD), own.entries[0]?.row.reason ?? '');
    // A copy from another message: folded.
    const copy = await forwardPush({ ...pushOf(event, 1), messageId: 'm-2' }, later);
    assert.deepEqual([copy.ack, copy.entries[0]?.row.status], [true, 'folded']);
    assert.equal(sent.length, 1, 'sent once');
    // A refusal releases: the retry of a message the platform refused sends again.
    const refusing = memoryClaims();
    const five = deps(ok(503));
    const r = await forwardPush(pushOf(event, 2), { ...five.d, claims: refusing });
    assert.deepEqual([r.ack, refusing.records.size], [false, 0]);
  });

  it('a copy waits out the first fan-out’s window the deps give (EVENTBUS_FIRST_WINDOW_MS), 2 minutes by default', async () => {
    // Sighted 150 s ago: one store push (60 s), the window and a lease (60 s) later the first
    // fan-out has surely ended; a copy (not the first fan-out's message) waits until then.
    const event = {
      ...stored,
      payload_digest: 'e'.repeat(64),
      received_at: new Date(now.getTime() - 150_000).toISOString(),
    };
    const copy = { ...pushOf(event, 1), messageId: 'm-copy' };
    const held = deps(ok(200));
    const waited = await forwardPush(copy, { ...held.d, claims: memoryClaims() });
    assert.deepEqual([waited.ack, held.sent.length], [false, 0]);
    assert.match(waited.entries[0]?.row.reason ?? '', /first fan-out may still be sending/);
    const short = deps(ok(200));
    const sent = await forwardPush(copy, { ...short.d, claims: memoryClaims(), firstWindowMs: 10_000 });
    assert.deepEqual([sent.ack, sent.entries[0]?.row.status, short.sent.length], [true, 'delivered', 1]);
  });

  it('uses the destination timeout', async () => {
    const { d, sent } = deps(ok(200));
    await forwardPush(pushOf(stored), { ...d, destinations: [{ ...hook, timeout_ms: 1234 }] });
    assert.equal(sent[0]!.timeoutMs, 1234);
  });
});

describe('push decoding', () => {
  const bad: [string, unknown][] = [
    ['not an object', 'x'],
    ['no message', {}],
    ['no messageId', { message: { data: '' } }],
    ['attribute not a string', { message: { messageId: '1', attributes: { a: 1 } } }],
  ];
  for (const [name, body] of bad) it(`refuses ${name}`, () => assert.equal(decodePush(body).ok, false));
  it('keeps deliveryAttempt, subscription, snake_case message_id', () => {
    const r = decodePush({
      message: { message_id: '7', data: Buffer.from('hi').toString('base64') },
      subscription: 's',
      deliveryAttempt: 3,
    });
    assert.ok(r.ok);
    assert.deepEqual(
      [r.push.messageId, r.push.data, r.push.subscription, r.push.deliveryAttempt],
      ['7', 'hi', 's', 3],
    );
  });
});

describe('webhook driver', () => {
  const ctx = { destination: hook, secrets: { signing_key: 'sekrit' }, now };
  it('POSTs the stored event as JSON to base_url + path with a verifiable signature', () => {
    const p = webhookDriver.prepare(stored, ctx);
    assert.ok(p.ok);
    const { request } = p;
    assert.equal(request.url, 'http://127.0.0.1:9/in');
    assert.deepEqual(JSON.parse(request.body), stored);
    const ts = request.headers[WEBHOOK_HEADERS.timestamp];
    assert.equal(ts, String(now.getTime() / 1000));
    const sig = request.headers[WEBHOOK_HEADERS.signature];
    assert.match(sig ?? '', /^v2=[0-9a-f]{64}$/);
    assert.equal(
      request.headers[WEBHOOK_HEADERS.deliveryId],
      createHash('sha256').update(`${stored.event_id}\n\nhook`).digest('hex'),
    );
    const verify = (over: Partial<Parameters<typeof verifyWebhookSignature>[0]>) =>
      verifyWebhookSignature({
        key: 'sekrit',
        method: 'POST',
        url: request.url,
        body: request.body,
        timestamp: ts,
        signature: sig,
        now,
        ...over,
      });
    assert.deepEqual(verify({}), { ok: true });
    assert.equal(verify({ key: 'other' }).ok, false);
    assert.equal(verify({ body: `${request.body} ` }).ok, false);
    assert.equal(verify({ now: new Date(now.getTime() + 301_000) }).ok, false);
    assert.equal(verify({ now: new Date(now.getTime() - 301_000) }).ok, false);
    assert.deepEqual(verify({ now: new Date(now.getTime() + 299_000) }), { ok: true });
    // The method and URL are signed: a captured request replayed elsewhere does not verify.
    assert.equal(verify({ url: 'http://127.0.0.1:9/other' }).ok, false);
    assert.equal(verify({ method: 'PUT' }).ok, false);
    assert.equal(verify({ signature: undefined }).ok, false);
    assert.deepEqual(verify({ signature: `v2=${'0'.repeat(64)}, ${sig}` }), { ok: true });
  });
  it('matches an independently computed HMAC (the documented recipe)', () => {
    // Computed with openssl, as docs/delivery.md shows:
    // printf '%s\n%s\n%s\n%s' 1 POST https://hooks.example/in '{}' | openssl dgst -sha256 -hmac key
    assert.equal(
      signWebhook('key', { timestamp: '1', method: 'POST', url: 'https://hooks.example/in', body: '{}' }),
      'v2=25cd7bcde7a2a679354ec9a20796eb603c6cd5635b10564e15fddef2c088e3b6',
    );
  });
  it('never sends unsigned: signing_key is a required secret and prepare refuses without it', () => {
    assert.deepEqual(webhookDriver.requiredSecrets, ['signing_key']);
    const p = webhookDriver.prepare(stored, { destination: hook, secrets: {}, now });
    assert.deepEqual(p, { ok: false, reason: 'secret signing_key is missing for destination hook' });
  });
  it('sends a delivery id that is the same for every attempt of one stored event to one destination', async () => {
    const digest = 'f'.repeat(64);
    const event = { ...stored, payload_digest: digest };
    // The documented recipe: hex SHA-256 of event_id LF payload_digest LF destination id.
    const expected = createHash('sha256').update(`evt-1\n${digest}\nhook`).digest('hex');
    // Two instances (each its own deps), a first attempt and a redelivery minutes later.
    const ids: (string | undefined)[] = [];
    for (const [attempt, at] of [
      [1, now.getTime()],
      [7, now.getTime() + 300_000],
    ] as const) {
      const { d, sent } = deps(ok(200));
      const push = pushOf(event, attempt);
      await forwardPush(push, { ...d, now: () => new Date(at) });
      ids.push(sent[0]?.request.headers[WEBHOOK_HEADERS.deliveryId]);
      assert.equal(sent[0]?.request.headers[WEBHOOK_HEADERS.timestamp], String(Math.floor(at / 1000)));
    }
    assert.deepEqual(ids, [expected, expected]);
    // Another event that reused the id (another digest), another destination, no digest: others.
    const idOf = (e: StoredEvent, destination: Destination) => {
      const p = webhookDriver.prepare(e, { destination, secrets: { signing_key: 'k' }, now });
      assert.ok(p.ok);
      return p.request.headers[WEBHOOK_HEADERS.deliveryId];
    };
    const others = [
      idOf({ ...event, payload_digest: 'e'.repeat(64) }, hook),
      idOf(event, { ...hook, id: 'hook2' }),
      idOf(stored, hook),
    ];
    assert.equal(new Set([expected, ...others]).size, 4);
    assert.equal(others[2], createHash('sha256').update('evt-1\n\nhook').digest('hex'));
  });
  it('marks test mode', () => {
    const p = webhookDriver.prepare(stored, { ...ctx, destination: { ...hook, test_mode: true } });
    assert.ok(p.ok);
    assert.equal(p.request.headers[WEBHOOK_HEADERS.test], '1');
    assert.match(p.request.headers[WEBHOOK_HEADERS.signature] ?? '', /^v2=/);
  });
  it('refuses a destination without base_url', () => {
    const { base_url: _, ...noUrl } = hook;
    assert.equal(webhookDriver.prepare(stored, { ...ctx, destination: noUrl }).ok, false);
  });
});

describe('fan-out after storage', () => {
  const settings = {
    name: 'x',
    project: 'proj-x1',
    region: 'europe-west1',
    destinations: [hook, { id: 'meta', type: 'meta_capi' } as Destination],
  };
  it('one message per permitted destination, one skip row per refusal', async () => {
    const published: DeliveryMessage[] = [];
    const ledger: LedgerEntry[] = [];
    const fan = createFanOut({
      settings,
      publish: async (m) => published.push(...m),
      writeLedger: async (e) => ledger.push(...e),
      now: () => now,
    });
    await fan([
      stored,
      { ...stored, event_id: 'evt-2', consent: { ads: 'granted', ad_user_data: 'granted' } },
    ]);
    assert.deepEqual(
      published.map((m) => [m.attributes['destination'], m.attributes['event_id']]),
      [
        ['hook', 'evt-1'],
        ['hook', 'evt-2'],
        ['meta', 'evt-2'],
      ],
    );
    assert.deepEqual(JSON.parse(published[0]!.data), stored);
    assert.deepEqual(
      ledger.map((e) => [e.row.destination, e.row.event_id, e.row.status, e.row.reason]),
      [['meta', 'evt-1', 'skipped', 'consent ads missing']],
    );
  });
  it('fails when the publish fails (the store push is then redelivered)', async () => {
    const fan = createFanOut({
      settings,
      publish: async () => {
        throw new Error('pubsub down');
      },
      writeLedger: async () => {},
    });
    await assert.rejects(fan([stored]), /pubsub down/);
  });
});

describe('forward core: a destination that stops answering gets probes, not every retry', () => {
  it('gives an unused probe back: the next call probes at once, at the same spacing', () => {
    const breaker = new Breaker();
    const t = 1_000_000;
    breaker.probeUnused('hook');
    assert.equal(breaker.isOpen('hook'), false, 'a closed breaker has no probe to give back');
    breaker.trip('hook', t);
    assert.equal(breaker.allow('hook', t + PROBE_EVERY_MS - 1), false);
    assert.equal(breaker.allow('hook', t + PROBE_EVERY_MS), true);
    assert.equal(breaker.allow('hook', t + PROBE_EVERY_MS + 1), false);
    breaker.probeUnused('hook');
    assert.equal(breaker.allow('hook', t + PROBE_EVERY_MS + 2), true);
    // Spent this time: the next one 2 × PROBE_EVERY_MS later, as if the first had been the one.
    assert.equal(breaker.allow('hook', t + 3 * PROBE_EVERY_MS + 1), false);
    assert.equal(breaker.allow('hook', t + 3 * PROBE_EVERY_MS + 2), true);
  });

  it('holds calls back after 5 unanswered ones, probes after 10 s then twice as far apart, and closes on the first answer', async () => {
    let clock = now.getTime();
    let answering = false;
    const { d, sent } = deps(() =>
      answering ? ok(200) : { kind: 'network_error', message: 'timeout after 5000 ms' },
    );
    const breaker = new Breaker();
    const withBreaker: ForwardDeps = { ...d, breaker, now: () => new Date(clock) };
    const attempt = () => forwardPush(pushOf(stored, 2), withBreaker);
    for (let i = 0; i < FAILURES_TO_OPEN; i++) assert.equal((await attempt()).ack, false);
    assert.equal(sent.length, FAILURES_TO_OPEN);
    // Open: answered "retry" at once, with a failed row that says why, and nothing sent.
    const held = await attempt();
    assert.equal(held.ack, false);
    assert.equal(held.entries[0]?.row.status, 'failed');
    assert.match(held.entries[0]?.row.reason ?? '', /held back: hook did not answer its last 5 calls/);
    assert.equal(sent.length, FAILURES_TO_OPEN);
    // One probe once 10 s have passed, without the event: a HEAD of the URL, no query, no body,
    // no headers. It fails, so the event is not sent and the next call is held again.
    clock += PROBE_EVERY_MS;
    const unanswered = await attempt();
    assert.match(unanswered.entries[0]?.row.reason ?? '', /did not answer a probe without the event/);
    assert.equal(sent.length, FAILURES_TO_OPEN + 1);
    const probe = sent.at(-1)?.request;
    assert.equal(probe?.method, 'HEAD');
    assert.equal(probe?.body, '');
    assert.deepEqual(probe?.headers, {});
    assert.equal(probe?.url, sent[0]?.request.url.split('?')[0]);
    await attempt();
    assert.equal(sent.length, FAILURES_TO_OPEN + 1);
    // The next probe comes twice as late: 10 s more are not enough.
    clock += PROBE_EVERY_MS;
    await attempt();
    assert.equal(sent.length, FAILURES_TO_OPEN + 1);
    // The destination answers again: the probe closes the breaker, the event follows it, calls flow.
    answering = true;
    clock += PROBE_EVERY_MS;
    assert.equal((await attempt()).ack, true);
    assert.deepEqual(
      sent.slice(FAILURES_TO_OPEN + 1).map((s) => s.request.method),
      ['HEAD', 'POST'],
    );
    assert.equal((await attempt()).ack, true);
    assert.equal(sent.length, FAILURES_TO_OPEN + 4);
    // Only the probes were HEADs: every event went out once per answered or unanswered call.
    assert.equal(sent.filter((s) => s.request.method === 'HEAD').length, 2);
  });

  it('counts an error status as an answer: a destination that answers 500 is not held back', async () => {
    const breaker = new Breaker();
    const { d, sent } = deps(ok(500));
    for (let i = 0; i < FAILURES_TO_OPEN + 2; i++) await forwardPush(pushOf(stored, 2), { ...d, breaker });
    assert.equal(sent.length, FAILURES_TO_OPEN + 2);
  });
});
