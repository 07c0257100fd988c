/**
 * Webhook formats end to end (emulators, the store and forward functions, a receiver of the
 * test's own): an event published, stored and delivered to endpoints that check each request
 * the way a receiver would, with the official libraries unchanged. Standard Webhooks across a key
 * rotation (both keys verify during the overlap, only the new one after), verified with
 * `standardwebhooks` and `svix`; a retry carrying the same `webhook-id` with a new timestamp and
 * signature; CloudEvents binary and structured parsed by the `cloudevents` SDK. The stack's own
 * receiver still gets the settings' webhook without `format`, in `eventbus-v2`, verified.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HTTP } from 'cloudevents';
import type { Destination } from '../../schemas/settings.ts';
import { verdicts } from '../support/webhook-verdicts.ts';
import { type Stack, startStack, testSettings, waitFor } from './support/stack.ts';

const NEW_KEY = `whsec_${randomBytes(32).toString('base64')}`;
const OLD_KEY = `whsec_${randomBytes(32).toString('base64')}`;

interface Arrival {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly status: number;
}

describe('webhook formats end to end (emulators, functions, libraries’ verifiers)', function () {
  this.timeout(60_000);
  let stack: Stack;
  let server: Server;
  const arrivals: Arrival[] = [];
  const handshakes: string[] = [];
  const run = Date.now().toString(36);
  const failOnce = new Set<string>();

  before(async () => {
    // The test's endpoint: records every request; the first attempt of a `retry-` event gets 503.
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        if (req.method === 'OPTIONS') {
          // The CloudEvents handshake: allowed, and counted.
          handshakes.push(req.url ?? '/');
          res.writeHead(200, { 'webhook-allowed-origin': headers['webhook-request-origin'] ?? '' }).end();
          return;
        }
        const id = headers['webhook-id'] ?? '';
        const first = body.includes('"retry-') && !failOnce.has(id);
        if (first) failOnce.add(id);
        const status = first ? 503 : 200;
        arrivals.push({ path: req.url ?? '/', headers, body, status });
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const now = Date.now();
    const hook = (id: string, config: NonNullable<Destination['config']>): Destination => ({
      id,
      type: 'webhook',
      base_url: url,
      config: { path: `/${id}`, ...config },
      secrets: { signing_key: 'HOOK_KEY_NEW', signing_key_previous: 'HOOK_KEY_OLD' },
      // Over a second apart: the retry's timestamp (whole seconds) differs from the first one's.
      retry: { minimum_backoff: '1.5s', maximum_backoff: '2s', max_attempts: 5 },
      timeout_ms: 2000,
    });
    const overlap = new Date(now + 3_600_000).toISOString();
    stack = await startStack(
      testSettings([
        hook('overlap', { format: 'standard-webhooks', previous_key_until: overlap }),
        hook('after', { format: 'standard-webhooks', previous_key_until: new Date(now).toISOString() }),
        hook('binary', { format: 'cloudevents-binary' }),
        hook('structured', { format: 'cloudevents-structured' }),
      ]),
      undefined,
      {
        secrets: { HOOK_KEY_NEW: NEW_KEY, HOOK_KEY_OLD: OLD_KEY },
        ownEndpoints: ['overlap', 'after', 'binary', 'structured'],
      },
    );
  });
  after(async () => {
    await stack?.close();
    await new Promise((r) => server?.close(r));
  });

  const event = (id: string) => ({
    event_name: 'view_content',
    event_id: id,
    consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
    content_name: 'Shoe',
    content_type: 'product',
  });
  const arrived = (path: string, eventId: string) =>
    arrivals.filter((a) => a.path === path && a.body.includes(`"${eventId}"`));

  it('one stored event reaches every format, each verified or parsed by its library', async () => {
    const id = `ok-${run}`;
    await stack.publishEvents([event(id)]);
    await waitFor('all four formats and the v2 webhook', async () => {
      const paths = ['/overlap', '/after', '/binary', '/structured'];
      const v2 = stack.receiver.received('hook').some((r) => r.eventId === id);
      return v2 && paths.every((p) => arrived(p, id).length > 0) ? true : undefined;
    });
    const [during] = arrived('/overlap', id);
    const [later] = arrived('/after', id);
    assert.ok(during && later);
    assert.deepEqual(verdicts(during, NEW_KEY), { standard: 'ok', svix: 'ok' });
    assert.deepEqual(verdicts(during, OLD_KEY), { standard: 'ok', svix: 'ok' });
    assert.deepEqual(verdicts(later, NEW_KEY), { standard: 'ok', svix: 'ok' });
    const old = verdicts(later, OLD_KEY);
    assert.notEqual(old.standard, 'ok');
    assert.notEqual(old.svix, 'ok');

    for (const path of ['/binary', '/structured']) {
      const [a] = arrived(path, id);
      assert.ok(a);
      assert.deepEqual(verdicts(a, NEW_KEY), { standard: 'ok', svix: 'ok' }, path);
      const ce = HTTP.toEvent({ headers: a.headers, body: a.body });
      assert.ok(!Array.isArray(ce));
      assert.deepEqual(
        [ce.specversion, ce.id, ce.source, ce.type, ce.subject, ce.datacontenttype],
        [
          '1.0',
          a.headers['webhook-id'],
          '/eventbus/deliverytest',
          'com.eventbus.view_content',
          id,
          'application/json',
        ],
        path,
      );
      assert.ok(ce.time, `${path}: time`);
      assert.equal((ce.data as { event_id?: unknown }).event_id, id, path);
    }
    assert.match(
      arrived('/structured', id)[0]?.headers['content-type'] ?? '',
      /^application\/cloudevents\+json/,
    );
    assert.equal(arrived('/binary', id)[0]?.headers['ce-type'], 'com.eventbus.view_content');
    // The CloudEvents endpoints were asked first (the handshake), the others never.
    assert.deepEqual([...new Set(handshakes)].sort(), ['/binary', '/structured']);

    // The settings' webhook without format: eventbus-v2 as before, checked by the stand-in.
    const v2 = stack.receiver.received('hook').filter((r) => r.eventId === id);
    assert.equal(v2[0]?.verified, true);
    assert.match(v2[0]?.note ?? '', /eventbus-v2 signature verified/);
  });

  it('a retry carries the same webhook-id with a new timestamp and signature, each verifying', async () => {
    const id = `retry-${run}`;
    await stack.publishEvents([event(id)]);
    const both = await waitFor('a refused attempt and a delivered one', async () => {
      const got = arrived('/overlap', id);
      return got.some((a) => a.status === 200) ? got : undefined;
    });
    const [first, second] = both;
    assert.ok(first && second);
    assert.deepEqual([first.status, second.status], [503, 200]);
    assert.equal(first.headers['webhook-id'], second.headers['webhook-id']);
    assert.notEqual(first.headers['webhook-timestamp'], second.headers['webhook-timestamp']);
    assert.notEqual(first.headers['webhook-signature'], second.headers['webhook-signature']);
    assert.deepEqual(verdicts(second, NEW_KEY), { standard: 'ok', svix: 'ok' });
    // The ledger row is written after the receiver's answer: wait for it, as a reader would.
    const rows = await waitFor('the delivered ledger row', async () => {
      const got = (await stack.ledger(id)).filter((r) => r.destination === 'overlap');
      return got.some((r) => r.status === 'delivered') ? got : undefined;
    });
    assert.deepEqual(
      rows.map((r) => r.status),
      ['failed', 'delivered'],
    );
  });
});
