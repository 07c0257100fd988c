/**
 * The CloudEvents webhook handshake (core/platforms/webhook/handshake.ts) over real HTTP on
 * loopback, through the egress gate: a receiver that allows our origin gets one OPTIONS, then
 * every delivery; one that refuses (or forgets WebHook-Allowed-Origin) gets no delivery, the
 * ledger row says why and the push is retried; a Standard Webhooks destination is never asked.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgressSender } from '../../adapters/egress.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import { deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import { parseAllowList } from '../../core/egress/policy.ts';
import type { StoredEvent } from '../../core/event.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import {
  Handshakes,
  handshakeRequest,
  REFUSAL_KEPT_MS,
  readHandshake,
  requestOrigin,
} from '../../core/platforms/webhook/handshake.ts';
import type { Destination } from '../../schemas/settings.ts';

const KEY = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;

/** How the receiver answers an OPTIONS on each path (headers, status). */
const ANSWERS: Record<string, { status: number; headers: Record<string, string> }> = {
  '/allows': { status: 200, headers: { 'webhook-allowed-origin': '*', 'webhook-allowed-rate': '120' } },
  '/names-us': { status: 200, headers: { 'webhook-allowed-origin': 'shop-prod.eventbus' } },
  '/names-other': { status: 200, headers: { 'webhook-allowed-origin': 'someone.example' } },
  '/silent': { status: 200, headers: {} },
  '/forbids': { status: 403, headers: {} },
};

describe('CloudEvents webhook handshake (through the egress gate, loopback receiver)', () => {
  let server: Server;
  let origin: string;
  const seen: { method: string; path: string; headers: IncomingMessage['headers'] }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      seen.push({ method: req.method ?? '', path, headers: req.headers });
      req.resume();
      req.on('end', () => {
        if (req.method === 'OPTIONS') {
          const a = ANSWERS[path] ?? { status: 404, headers: {} };
          res.writeHead(a.status, a.headers).end();
        } else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((r) => server.close(r)));
  beforeEach(() => {
    seen.length = 0;
  });

  const hook = (id: string, path: string, format = 'cloudevents-binary'): Destination => ({
    id,
    type: 'webhook',
    base_url: origin,
    config: { path, format },
    secrets: { signing_key: 'KEY' },
  });

  const event = (id: string): StoredEvent =>
    ({
      event_id: id,
      event_name: 'view_content',
      event_time: '2026-11-27T08:00:00.000Z',
      received_at: '2026-11-27T08:00:00.100Z',
      payload_digest: 'd',
      consent: { analytics: 'granted', ads: 'granted' },
    }) as unknown as StoredEvent;

  /** The push Pub/Sub would make of the message fan-out publishes. */
  const pushOf = (e: StoredEvent, destination: string): PushedMessage => {
    const { data, attributes } = deliveryMessage(e, destination);
    return {
      messageId: `m-${e.event_id}`,
      attributes,
      data,
      subscription: `projects/p/subscriptions/deliveries-${destination}`,
      deliveryAttempt: 1,
    };
  };

  let clock = Date.parse('2026-11-27T08:00:01.000Z');
  const depsFor = (destinations: Destination[], handshakes = new Handshakes()): ForwardDeps => ({
    destinations,
    environment: 'shop-prod',
    driverFor,
    getSecret: () => KEY,
    send: createEgressSender({ allow: parseAllowList(origin), component: 'forward', log: () => {} }),
    now: () => new Date(clock),
    handshakes,
  });

  const methods = () => seen.map((s) => `${s.method} ${s.path}`);

  it('an endpoint that allows us is asked once, with our origin, before the first delivery only', async () => {
    const deps = depsFor([hook('ce', '/allows')]);
    const first = await forwardPush(pushOf(event('e1'), 'ce'), deps);
    const second = await forwardPush(pushOf(event('e2'), 'ce'), deps);
    assert.equal(first.entries[0]?.row.status, 'delivered', JSON.stringify(first.entries[0]?.row));
    assert.equal(second.entries[0]?.row.status, 'delivered');
    assert.deepEqual(methods(), ['OPTIONS /allows', 'POST /allows', 'POST /allows']);
    assert.equal(seen[0]?.headers['webhook-request-origin'], 'shop-prod.eventbus');
    assert.equal(seen[0]?.headers['user-agent'], 'eventbus-webhook/1');
  });

  it('deliveries arriving together share one handshake', async () => {
    const deps = depsFor([hook('ce', '/names-us')]);
    const results = await Promise.all(
      ['a', 'b', 'c'].map((id) => forwardPush(pushOf(event(id), 'ce'), deps)),
    );
    assert.deepEqual(
      results.map((r) => r.entries[0]?.row.status),
      ['delivered', 'delivered', 'delivered'],
    );
    assert.equal(methods().filter((m) => m.startsWith('OPTIONS')).length, 1);
  });

  for (const [path, why] of [
    ['/names-other', /allows origin "someone\.example", not shop-prod\.eventbus/],
    ['/silent', /without WebHook-Allowed-Origin/],
    ['/forbids', /HTTP 403/],
  ] as const) {
    it(`a refusal (${path}): nothing sent, a failed row saying why, retried; asked again after the refusal's time`, async () => {
      const deps = depsFor([hook('ce', path)]);
      const result = await forwardPush(pushOf(event('r1'), 'ce'), deps);
      const row = result.entries[0]?.row;
      assert.equal(result.ack, false, 'retried by Pub/Sub');
      assert.equal(row?.status, 'failed');
      assert.match(row?.reason ?? '', /not sent: the CloudEvents handshake with .* was refused/);
      assert.match(row?.reason ?? '', why);
      // Retried within the refusal's time: not asked again, still not sent.
      const again = await forwardPush(pushOf(event('r1'), 'ce'), deps);
      assert.equal(again.entries[0]?.row.status, 'failed');
      assert.deepEqual(methods(), [`OPTIONS ${path}`]);
      clock += REFUSAL_KEPT_MS + 1;
      await forwardPush(pushOf(event('r1'), 'ce'), deps);
      assert.deepEqual(methods(), [`OPTIONS ${path}`, `OPTIONS ${path}`]);
    });
  }

  it('an endpoint the gate refuses: the delivery is rejected by the gate as any other, no connection', async () => {
    const outside: Destination = { ...hook('out', '/x'), base_url: 'http://169.254.169.254' };
    const result = await forwardPush(pushOf(event('o1'), 'out'), depsFor([outside]));
    const row = result.entries[0]?.row;
    assert.equal(row?.status, 'rejected', JSON.stringify(row));
    assert.match(row?.reason ?? '', /^egress refused: /);
    assert.equal(result.ack, true, 'permanent, acknowledged');
    assert.equal(seen.length, 0);
  });

  it('structured mode is asked too; Standard Webhooks and eventbus-v2 are not', async () => {
    const deps = depsFor([
      hook('st', '/allows', 'cloudevents-structured'),
      hook('sw', '/allows', 'standard-webhooks'),
      hook('v2', '/allows', 'eventbus-v2'),
    ]);
    for (const d of ['st', 'sw', 'v2'])
      assert.equal((await forwardPush(pushOf(event(`f-${d}`), d), deps)).entries[0]?.row.status, 'delivered');
    assert.deepEqual(methods(), ['OPTIONS /allows', 'POST /allows', 'POST /allows', 'POST /allows']);
  });

  it('reads answers as the specification says', () => {
    const us = requestOrigin('Shop Prod');
    assert.equal(us, 'shop-prod.eventbus');
    const answer = (headers: Record<string, string>, status = 200) =>
      readHandshake({ kind: 'response', status, headers, body: '' }, us);
    assert.deepEqual(answer({ 'webhook-allowed-origin': 'SHOP-PROD.eventbus' }), { allowed: true });
    assert.deepEqual(answer({ 'webhook-allowed-origin': '*', 'webhook-allowed-rate': '*' }), {
      allowed: true,
      rate: '*',
    });
    assert.equal(answer({ 'webhook-allowed-origin': '*' }, 405)?.allowed, false);
    assert.equal(readHandshake({ kind: 'network_error', message: 'timeout' }, us), undefined);
    assert.equal(handshakeRequest(hook('x', '/p', 'standard-webhooks'), 'e'), undefined);
    assert.equal(
      handshakeRequest({ ...hook('x', '/p'), config: {} }, 'e'),
      undefined,
      'no format: eventbus-v2',
    );
  });
});
