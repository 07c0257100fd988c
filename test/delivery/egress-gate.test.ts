/**
 * The egress gate (adapters/egress.ts) over real HTTP on loopback. Nothing here may leave the
 * machine: names are resolved by an injected resolver, every connection the gate's transport opens
 * is counted by its agents, and each refusal is asserted to come before any connection (a broken
 * gate fails these tests by a count, never by reaching the address). The one target that delivers
 * is a loopback stand-in on the allow-list.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import {
  createServer,
  Agent as HttpAgent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { type AddressInfo, type LookupFunction, Socket } from 'node:net';
import { createEgressSender, type EgressOptions, egressFetch, type Resolver } from '../../adapters/egress.ts';
import { createTransport, targetOf } from '../../adapters/http-sender.ts';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import { Breaker, FAILURES_TO_OPEN } from '../../core/delivery/breaker.ts';
import { type ForwardDeps, forwardPush } from '../../core/delivery/forward.ts';
import { ConcurrencyLimiter } from '../../core/delivery/limiter.ts';
import { decodePush, deliveryMessage, type PushedMessage } from '../../core/delivery/message.ts';
import { parseAllowList } from '../../core/egress/policy.ts';
import type { StoredEvent } from '../../core/event.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import { startCaptureReceiver } from '../../local/platforms/capture.ts';
import type { Destination } from '../../schemas/settings.ts';

/**
 * Agents that count every connection they are asked to open (each would be a packet out), and
 * open only those to loopback: a broken gate fails a test by its count, never by reaching out.
 */
function countingAgents() {
  const counts = { connections: 0 };
  const loopbackOnly = (options: {
    host?: string | null | undefined;
    lookup?: unknown;
  }): Socket | undefined => {
    counts.connections++;
    const pinned =
      typeof options.lookup === 'function' ? pinnedAddress(options.lookup as LookupFunction) : undefined;
    const to = pinned ?? options.host ?? '';
    if (to === '127.0.0.1' || to === '::1') return undefined;
    const socket = new Socket();
    process.nextTick(() => socket.destroy(new Error(`the test agent opens no connection to ${to}`)));
    return socket;
  };
  class CountingHttp extends HttpAgent {
    override createConnection(...args: Parameters<HttpAgent['createConnection']>) {
      return loopbackOnly(args[0]) ?? super.createConnection(...args);
    }
  }
  class CountingHttps extends HttpsAgent {
    override createConnection(...args: Parameters<HttpsAgent['createConnection']>) {
      return loopbackOnly(args[0]) ?? super.createConnection(...args);
    }
  }
  return {
    counts,
    httpAgent: new CountingHttp({ keepAlive: true }),
    httpsAgent: new CountingHttps({ keepAlive: true }),
  };
}

/** The address a pinned lookup answers (synchronously, as the gate's does). */
function pinnedAddress(lookup: LookupFunction): string | undefined {
  let out: string | undefined;
  lookup('probe', { all: false }, (_err, address) => {
    out = typeof address === 'string' ? address : undefined;
  });
  return out;
}

/** A loopback server that records what reached it (and every TCP connection made to it). */
async function standIn(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen = {
    requests: [] as { method: string; url: string; headers: IncomingMessage['headers'] }[],
    connections: 0,
  };
  const server: Server = createServer((req, res) => {
    seen.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handle(req, res));
  });
  server.on('connection', (s: Socket) => {
    seen.connections++;
    s.unref();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin, seen };
}

/** Names this test knows; any other name fails the test instead of reaching real DNS. */
function resolverOf(names: Record<string, string>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const address = names[hostname];
    if (address === undefined) throw new Error(`the test resolver does not know ${hostname}`);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return Object.assign(resolve, { calls });
}

/** Where the allowed stand-in sends each redirecting path: status and Location. */
const REDIRECTS: Readonly<Record<string, readonly [number, string]>> = {
  '/redirect-to-metadata': [
    302,
    'http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token',
  ],
  '/redirect-to-name': [307, 'https://rebind.example.test/token'],
  '/redirect-loop': [302, '/redirect-loop'],
  '/redirect-home': [303, '/hook'],
};

type StandIn = Awaited<ReturnType<typeof standIn>>;

/**
 * For one describe: the allowed stand-in (on the allow-list; `ok` answers the rest), another
 * origin also on the allow-list (`/to-other-<status>` on the first redirects there), and the
 * studio's (not on it).
 */
function standIns(ok: string): { allowed: StandIn; other: StandIn; studio: StandIn } {
  const s = {} as { allowed: StandIn; other: StandIn; studio: StandIn };
  before(async () => {
    s.allowed = await standIn((req, res) => {
      const away = /^\/to-other-(\d{3})$/.exec(req.url ?? '');
      const hop: readonly [number, string] | undefined = away
        ? [Number(away[1]), `${s.other.origin}/landing`]
        : REDIRECTS[req.url ?? ''];
      if (hop) res.writeHead(hop[0], { location: hop[1] });
      res.end(hop ? undefined : ok);
    });
    s.other = await standIn((_req, res) => res.end('other'));
    s.studio = await standIn((_req, res) => res.end('studio'));
  });
  after(() => {
    s.allowed.server.close();
    s.other.server.close();
    s.studio.server.close();
  });
  return s;
}

describe('egress gate: refusals come before any connection', () => {
  const s = standIns('ok');

  function gate(extra: Partial<EgressOptions> = {}) {
    const agents = countingAgents();
    const logged: Record<string, unknown>[] = [];
    const resolve = resolverOf({ 'crm.example.test': '10.0.0.1', 'rebind.example.test': '169.254.169.254' });
    const send = createEgressSender({
      allow: parseAllowList(`${s.allowed.origin},${s.other.origin}`),
      component: 'test',
      resolve,
      log: (line) => logged.push({ ...line }),
      httpAgent: agents.httpAgent,
      httpsAgent: agents.httpsAgent,
      ...extra,
    });
    return { send, counts: agents.counts, logged, resolve };
  }

  const post = (url: string, headers: Record<string, string> = {}) => ({
    method: 'POST',
    url,
    redactedUrl: url,
    headers: { 'content-type': 'application/json', ...headers },
    body: '{"a":1}',
  });

  async function assertRefused(url: string, why: RegExp, headers?: Record<string, string>) {
    const g = gate();
    const answer = await g.send(post(url, headers), 2000);
    assert.equal(answer.kind, 'refused', JSON.stringify(answer));
    assert.ok(answer.kind === 'refused');
    assert.match(answer.reason, /^egress refused: /);
    assert.match(answer.reason, why);
    assert.equal(g.counts.connections, 0, 'no connection was attempted');
    assert.equal(g.logged.length, 1, 'one log line per refusal');
    assert.equal(g.logged[0]?.['message'], answer.reason);
    return g;
  }

  it('the metadata server, by address and by name: refused, no connection', async () => {
    await assertRefused(
      'http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token',
      /metadata server/,
    );
    await assertRefused('https://metadata.google.internal/computeMetadata/v1/', /metadata server/);
  });

  it('127.0.0.1:<studio port> (a loopback service not on the allow-list): refused, nothing reaches it', async () => {
    const port = new URL(s.studio.origin).port;
    await assertRefused(`http://127.0.0.1:${port}/v1/admin/apply`, /loopback/);
    await assertRefused(`https://127.0.0.1:${port}/v1/admin/apply`, /loopback/);
    assert.equal(s.studio.seen.connections, 0);
  });

  it('[::ffff:169.254.169.254] (IPv4-mapped IPv6): refused, no connection', async () => {
    await assertRefused('https://[::ffff:169.254.169.254]/computeMetadata/v1/', /IPv4-mapped/);
  });

  it('a hostname the resolver resolves to 10.0.0.1: refused after resolution, no connection', async () => {
    const g = await assertRefused(
      'https://crm.example.test/hook',
      /crm\.example\.test resolves to a private address/,
    );
    assert.deepEqual(g.resolve.calls, ['crm.example.test']);
  });

  it('a redirect from the allowed stand-in to the metadata server: the hop is refused, no connection to it', async () => {
    const g = gate({ maxRedirects: 5 });
    const before = s.allowed.seen.requests.length;
    const answer = await g.send(post(`${s.allowed.origin}/redirect-to-metadata`), 2000);
    assert.ok(answer.kind === 'refused', JSON.stringify(answer));
    assert.match(answer.reason, /^egress refused: 169\.254\.169\.254 is the metadata server/);
    assert.equal(s.allowed.seen.requests.length, before + 1, 'the stand-in was asked once');
    assert.equal(g.counts.connections, 1, 'one connection: to the stand-in, none to the metadata server');
  });

  it('a redirect to a name that resolves inside is refused at that hop, credentials never sent', async () => {
    const g = gate({ maxRedirects: 5 });
    const answer = await g.send(
      post(`${s.allowed.origin}/redirect-to-name`, { authorization: 'Bearer secret' }),
      2000,
    );
    assert.ok(answer.kind === 'refused');
    assert.match(answer.reason, /rebind\.example\.test resolves to the metadata server/);
    assert.equal(g.counts.connections, 1);
  });

  it("a redirect away from the destination's allowed_hosts (307, 303) is refused at that hop: nothing reaches the other host", async () => {
    const allowedHost = new URL(s.allowed.origin).host;
    for (const status of [307, 303]) {
      const g = gate({ maxRedirects: 5 });
      const before = s.other.seen.requests.length;
      const answer = await g.send(
        {
          ...post(`${s.allowed.origin}/to-other-${status}`, { 'x-api-key': 'k-secret' }),
          allowedHosts: [allowedHost],
        },
        2000,
      );
      assert.ok(answer.kind === 'refused', `${status}: ${JSON.stringify(answer)}`);
      assert.match(
        answer.reason,
        new RegExp(
          `^egress refused: 127\\.0\\.0\\.1:${new URL(s.other.origin).port} is not one of the destination's allowed_hosts`,
        ),
      );
      assert.equal(s.other.seen.requests.length, before, `${status}: the other host was never asked`);
      assert.equal(s.other.seen.connections, 0, `${status}: not even connected to`);
    }
  });

  it('a cross-origin redirect carries none of the headers the destination supplied, only those describing the body', async () => {
    const g = gate({ maxRedirects: 5 });
    const supplied = {
      authorization: 'Bearer secret',
      'x-api-key': 'k-secret',
      'x-goog-api-key': 'g-secret',
      'api-key': 'a-secret',
      'x-custom-token': 't-secret',
      accept: 'application/json',
    };
    const answer = await g.send(post(`${s.allowed.origin}/to-other-307`, supplied), 2000);
    assert.ok(answer.kind === 'response' && answer.status === 200, JSON.stringify(answer));
    const landed = s.other.seen.requests.at(-1);
    assert.equal(landed?.method, 'POST', '307 keeps the method');
    const sent = Object.keys(landed?.headers ?? {}).filter(
      (h) => !['host', 'connection', 'content-length'].includes(h),
    );
    assert.deepEqual(sent.sort(), ['accept', 'content-type']);
    const first = s.allowed.seen.requests.at(-1);
    assert.equal(first?.headers['x-api-key'], 'k-secret', 'the first origin got what was meant for it');
  });

  it('redirects are bounded: a loop ends refused after maxRedirects hops', async () => {
    const g = gate({ maxRedirects: 3 });
    const before = s.allowed.seen.requests.length;
    const answer = await g.send(post(`${s.allowed.origin}/redirect-loop`), 2000);
    assert.ok(answer.kind === 'refused');
    assert.match(answer.reason, /more than 3 redirects/);
    assert.equal(s.allowed.seen.requests.length - before, 4);
  });

  it('forward sends with no redirect followed: the 3xx is the answer', async () => {
    const g = gate();
    const answer = await g.send(post(`${s.allowed.origin}/redirect-to-metadata`), 2000);
    assert.ok(answer.kind === 'response');
    assert.equal(answer.status, 302);
  });

  it('headers from a mapping cannot set Host or smuggle a line: refused, no connection', async () => {
    await assertRefused(`${s.allowed.origin}/hook`, /Host is set by the sender/, {
      Host: 'metadata.google.internal',
    });
    await assertRefused(`${s.allowed.origin}/hook`, /CR, LF/, { 'x-note': 'a\r\nHost: 169.254.169.254' });
  });

  it("a Host naming the URL's own host is sent (IQM's action sets one); it still goes to that host", async () => {
    const g = gate();
    const own = new URL(s.allowed.origin).host;
    const answer = await g.send(post(`${s.allowed.origin}/hook`, { Host: own }), 2000);
    assert.ok(answer.kind === 'response' && answer.status === 200, JSON.stringify(answer));
    assert.equal(s.allowed.seen.requests.at(-1)?.headers.host, own);
  });

  it('a header value beyond Latin-1 is refused, not thrown: no connection', async () => {
    await assertRefused(`${s.allowed.origin}/hook`, /x-note holds a character HTTP cannot carry/, {
      'x-note': 'caf\u00e9 \u{1F389}',
    });
  });

  it('a resolver that never answers is a network error at the deadline, never a connection', async () => {
    const g = gate({ resolve: () => new Promise(() => {}) });
    const started = Date.now();
    const answer = await g.send(post('https://slow.example.test/hook'), 150);
    assert.ok(answer.kind === 'network_error', JSON.stringify(answer));
    assert.match(answer.message, /timeout resolving slow\.example\.test/);
    assert.ok(Date.now() - started < 2000);
    assert.equal(g.counts.connections, 0);
  });

  it('file: and data: targets are refused', async () => {
    await assertRefused('file:///etc/passwd', /file: scheme/);
    await assertRefused('data:text/plain,hi', /data: scheme/);
  });

  it('an allowed stand-in still delivers, and a same-origin redirect is followed as a GET', async () => {
    const g = gate({ maxRedirects: 5 });
    const answer = await g.send(post(`${s.allowed.origin}/hook`), 2000);
    assert.ok(answer.kind === 'response');
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'ok');
    const before = s.allowed.seen.requests.length;
    const hop = await g.send(post(`${s.allowed.origin}/redirect-home`), 2000);
    assert.ok(hop.kind === 'response' && hop.status === 200);
    assert.deepEqual(
      s.allowed.seen.requests.slice(before).map((r) => `${r.method} ${r.url}`),
      ['POST /redirect-home', 'GET /hook'],
    );
    assert.equal(g.logged.length, 0);
  });

  it('the connection goes to the checked address, whatever the name (pinned lookup)', async () => {
    const agents = countingAgents();
    const transport = createTransport({ httpAgent: agents.httpAgent });
    const port = new URL(s.allowed.origin).port;
    // A name no resolver knows: only the pinned lookup can take this request anywhere.
    const target = targetOf(new URL(`http://pinned.invalid:${port}/hook`));
    const answer = await transport(target, { method: 'GET', redactedUrl: 'x', headers: {}, body: '' }, 2000, {
      address: '127.0.0.1',
      family: 4,
    });
    assert.ok(answer.kind === 'response' && answer.status === 200, JSON.stringify(answer));
    assert.equal(s.allowed.seen.requests.at(-1)?.headers.host, `pinned.invalid:${port}`);
  });
});

describe('egress gate in delivery: a refusal is a rejected ledger row', () => {
  const s = standIns('{}');

  const event = (callback: string): StoredEvent => ({
    event_name: 'purchase',
    event_id: `evt-${callback.length}-${Math.random().toString(36).slice(2)}`,
    event_time: '2026-11-25T12:00:00.000Z',
    source: 'browser',
    event_data: { value: 1, currency: 'EUR', properties: { callback } },
  });

  /** Segment's Webhook action with the URL read from the event, as the red team's mapping did. */
  const webhook: Destination = {
    id: 'hook',
    type: 'segment_action',
    destination: 'webhook',
    actions: [
      {
        action: 'send',
        when: 'type = "track"',
        mapping: {
          url: { '@path': '$.properties.callback' },
          method: 'POST',
          data: { '@path': '$.properties' },
        },
      },
    ],
  };

  function pushOf(e: StoredEvent, id: string): PushedMessage {
    const m = deliveryMessage(e, id);
    const decoded = decodePush({
      message: {
        data: Buffer.from(m.data).toString('base64'),
        attributes: m.attributes,
        messageId: `m-${e.event_id}`,
      },
      subscription: `projects/p/subscriptions/deliveries-${id}`,
      deliveryAttempt: 1,
    });
    assert.ok(decoded.ok);
    return decoded.push;
  }

  function catalogDeps(destination: Destination = webhook, extra: Partial<EgressOptions> = {}) {
    const agents = countingAgents();
    const send = createEgressSender({
      allow: parseAllowList(`${s.allowed.origin},${s.other.origin}`),
      component: 'forward-catalog',
      resolve: resolverOf({ 'crm.example.test': '10.0.0.1' }),
      maxRedirects: 5,
      log: () => {},
      httpAgent: agents.httpAgent,
      httpsAgent: agents.httpsAgent,
      ...extra,
    });
    const driver = segmentActionDriver(egressFetch(send, 5000));
    const deps: ForwardDeps = {
      destinations: [destination],
      driverFor: (type) => (type === driver.type ? driver : undefined),
      getSecret: async () => undefined,
      send: () => Promise.reject(new Error('not used for segment_action')),
      now: () => new Date('2026-11-25T12:00:01.000Z'),
    };
    return { deps, counts: agents.counts };
  }

  const refusedTargets = (): [string, string, RegExp][] => [
    [
      'the metadata server',
      'http://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token',
      /metadata server/,
    ],
    ['127.0.0.1:<studio>', `http://127.0.0.1:${new URL(s.studio.origin).port}/v1/admin/apply`, /loopback/],
    ['[::ffff:169.254.169.254]', 'https://[::ffff:169.254.169.254]/latest', /IPv4-mapped/],
    ['a name resolved to 10.0.0.1', 'https://crm.example.test/hook', /private address/],
    [
      'a redirect from the allowed stand-in to the metadata server',
      `${s.allowed.origin}/redirect-to-metadata`,
      /metadata server/,
    ],
  ];

  it('a write-key event whose mapped URL points inside: each a rejected row "egress refused", no connection but to the stand-in', async () => {
    for (const [name, url, why] of refusedTargets()) {
      const { deps, counts } = catalogDeps();
      const result = await forwardPush(pushOf(event(url), 'hook'), deps);
      const row = result.entries[0]?.row;
      assert.equal(row?.status, 'rejected', `${name}: ${JSON.stringify(row)}`);
      assert.match(row?.reason ?? '', /^egress refused: /, name);
      assert.match(row?.reason ?? '', why, name);
      assert.equal(result.ack, true, `${name}: permanent, acknowledged`);
      const expected = url.startsWith(s.allowed.origin) ? 1 : 0;
      assert.equal(counts.connections, expected, `${name}: connections attempted`);
    }
    assert.equal(s.studio.seen.connections, 0, 'nothing reached the studio');
  });

  it('an allowed stand-in (behind the allow-list) still delivers', async () => {
    const { deps, counts } = catalogDeps();
    const before = s.allowed.seen.requests.length;
    const result = await forwardPush(pushOf(event(`${s.allowed.origin}/hook`), 'hook'), deps);
    assert.equal(result.entries[0]?.row.status, 'delivered', JSON.stringify(result.entries[0]?.row));
    assert.equal(s.allowed.seen.requests.length, before + 1);
    assert.equal(counts.connections, 1);
  });

  it("allow_event_urls: an event's URL goes only to the destination's allowed_hosts", async () => {
    const port = new URL(s.allowed.origin).port;
    const other = catalogDeps({ ...webhook, allow_event_urls: true, allowed_hosts: ['hooks.example.test'] });
    const refused = await forwardPush(pushOf(event(`${s.allowed.origin}/hook`), 'hook'), other.deps);
    assert.equal(refused.entries[0]?.row.status, 'rejected');
    assert.match(
      refused.entries[0]?.row.reason ?? '',
      new RegExp(`^egress refused: 127\\.0\\.0\\.1:${port} is not one of the destination's allowed_hosts`),
    );
    assert.equal(other.counts.connections, 0);
    const listed = catalogDeps({ ...webhook, allow_event_urls: true, allowed_hosts: [`127.0.0.1:${port}`] });
    const sent = await forwardPush(pushOf(event(`${s.allowed.origin}/hook`), 'hook'), listed.deps);
    assert.equal(sent.entries[0]?.row.status, 'delivered');
  });

  it("a catalogue action's redirect from an allowed host to another is refused at that hop, nothing sent there", async () => {
    const allowedHost = new URL(s.allowed.origin).host;
    const before = s.other.seen.requests.length;
    for (const status of [307, 303]) {
      const { deps } = catalogDeps({ ...webhook, allow_event_urls: true, allowed_hosts: [allowedHost] });
      const result = await forwardPush(pushOf(event(`${s.allowed.origin}/to-other-${status}`), 'hook'), deps);
      const row = result.entries[0]?.row;
      assert.equal(row?.status, 'rejected', `${status}: ${JSON.stringify(row)}`);
      assert.match(row?.reason ?? '', /egress refused: .* is not one of the destination's allowed_hosts/);
    }
    assert.equal(s.other.seen.requests.length, before);
    assert.equal(s.other.seen.connections, 0);
  });

  it('locally, the capturing stand-in receives a catalogue request only after the gate judged its real target, as in the cloud (#98)', async () => {
    const capture = await startCaptureReceiver();
    try {
      // An operator's fixed URL (no event involved), each with the verdict the cloud gives it.
      const cases: [string, RegExp | 'delivered'][] = [
        ['http://169.254.169.254/computeMetadata/v1/', /metadata server/],
        ['https://10.0.0.5/hook', /10\.0\.0\.5 is a private address/],
        ['https://db.corp.internal/hook', /an internal name/],
        ['https://[::ffff:0:a9fe:a9fe]/hook', /IPv4-translated/],
        ['http://hooks.example.test/hook', /over http/],
        ['https://hooks.example.test/hook', 'delivered'],
      ];
      for (const [url, verdict] of cases) {
        const fixed: Destination = {
          ...webhook,
          actions: [
            {
              action: 'send',
              when: 'type = "track"',
              mapping: { url, method: 'POST', data: { '@path': '$.properties' } },
            },
          ],
        };
        const before = capture.captured().length;
        const local = catalogDeps(fixed, {
          allow: parseAllowList(`${s.allowed.origin},${new URL(capture.url).origin}`),
          capture: capture.url,
          resolve: () => Promise.reject(new Error('the local twin resolves no vendor name')),
        });
        const cloud = catalogDeps(fixed);
        const here = (await forwardPush(pushOf(event(url), 'hook'), local.deps)).entries[0]?.row;
        if (verdict === 'delivered') {
          assert.equal(here?.status, 'delivered', `${url}: ${JSON.stringify(here)}`);
          const got = capture.captured().slice(before);
          assert.deepEqual(
            got.map((r) => `${r.method} ${r.host}${r.path}`),
            ['POST hooks.example.test/hook'],
            'the stand-in recorded the real target',
          );
          continue;
        }
        const there = (await forwardPush(pushOf(event(url), 'hook'), cloud.deps)).entries[0]?.row;
        assert.equal(here?.status, 'rejected', `${url}: ${JSON.stringify(here)}`);
        assert.match(here?.reason ?? '', verdict, url);
        assert.equal(here?.reason, there?.reason, `${url}: the same refusal locally and in the cloud`);
        assert.equal(capture.captured().length, before, `${url}: nothing reached the stand-in`);
        assert.equal(local.counts.connections, 0, `${url}: no connection`);
      }
    } finally {
      await capture.close();
    }
  });

  it("IQM's own Host header passes the gate to its own host; a Host naming another is refused (#95)", async () => {
    const capture = await startCaptureReceiver();
    try {
      const local = {
        allow: parseAllowList(`${s.allowed.origin},${new URL(capture.url).origin}`),
        capture: capture.url,
        resolve: () => Promise.reject(new Error('the local twin resolves no vendor name')),
      };
      // Segment's IQM, its presets, no base_url: the action sets Host: postback.iqm.com itself.
      const iqm: Destination = {
        id: 'iqm',
        type: 'segment_action',
        destination: 'iqm',
        config: { pixel_id: 'px-1' },
      };
      const before = capture.captured().length;
      const row = (
        await forwardPush(pushOf(event('https://shop.example/'), 'iqm'), catalogDeps(iqm, local).deps)
      ).entries[0]?.row;
      assert.equal(row?.status, 'delivered', JSON.stringify(row));
      const got = capture.captured().slice(before);
      assert.deepEqual(
        got.map((r) => `${r.method} ${r.host}`),
        ['POST postback.iqm.com'],
        'the stand-in recorded the real target',
      );
      // The same header naming another host is the virtual-host trick: refused, nothing sent.
      const routed: Destination = {
        ...webhook,
        actions: [
          {
            action: 'send',
            when: 'type = "track"',
            mapping: {
              url: 'https://hooks.example.test/hook',
              method: 'POST',
              headers: { Host: 'metadata.google.internal' },
              data: { '@path': '$.properties' },
            },
          },
        ],
      };
      const refused = (await forwardPush(pushOf(event('x'), 'hook'), catalogDeps(routed, local).deps))
        .entries[0]?.row;
      assert.equal(refused?.status, 'rejected', JSON.stringify(refused));
      assert.match(refused?.reason ?? '', /egress refused: header host is set by the sender/i);
      assert.equal(capture.captured().length, before + 1, 'nothing more reached the stand-in');
    } finally {
      await capture.close();
    }
  });

  it('a refusal is not silence: refused calls never hold the destination back, its next event delivers (#75)', async () => {
    const breaker = new Breaker();
    const limiter = new ConcurrencyLimiter();
    for (let i = 0; i < FAILURES_TO_OPEN + 3; i++) {
      const { deps } = catalogDeps();
      const at = { ...deps, breaker, limiter };
      const refused = await forwardPush(pushOf(event(`http://169.254.169.254/latest/${i}`), 'hook'), at);
      assert.match(refused.entries[0]?.row.reason ?? '', /^egress refused: /);
    }
    assert.equal(breaker.failures('hook'), 0);
    const { deps } = catalogDeps();
    const ok = await forwardPush(pushOf(event(`${s.allowed.origin}/hook`), 'hook'), {
      ...deps,
      breaker,
      limiter,
    });
    assert.equal(ok.entries[0]?.row.status, 'delivered', JSON.stringify(ok.entries[0]?.row));
  });

  it("forward's own drivers: a webhook base_url at the metadata server is a rejected row, nothing sent", async () => {
    const agents = countingAgents();
    const hook: Destination = {
      id: 'plain',
      type: 'webhook',
      base_url: 'http://169.254.169.254/',
      config: { path: '/in' },
      secrets: { signing_key: 'HOOK_KEY' },
    };
    const deps: ForwardDeps = {
      destinations: [hook],
      driverFor,
      getSecret: async () => 'k',
      send: createEgressSender({
        allow: parseAllowList(s.allowed.origin),
        component: 'forward',
        resolve: resolverOf({}),
        log: () => {},
        httpAgent: agents.httpAgent,
        httpsAgent: agents.httpsAgent,
      }),
      now: () => new Date('2026-11-25T12:00:01.000Z'),
    };
    const breaker = new Breaker();
    const limiter = new ConcurrencyLimiter();
    for (let i = 0; i < FAILURES_TO_OPEN + 2; i++)
      await forwardPush(pushOf(event(`x${i}`), 'plain'), { ...deps, breaker, limiter });
    // Nothing was sent, so nothing was learnt: the breaker stays closed (#75).
    assert.equal(breaker.failures('plain'), 0);
    assert.equal(limiter.view('plain').answering, false);
    const result = await forwardPush(pushOf(event('x'), 'plain'), { ...deps, breaker, limiter });
    assert.equal(result.entries[0]?.row.status, 'rejected');
    assert.match(
      result.entries[0]?.row.reason ?? '',
      /^egress refused: 169\.254\.169\.254 is the metadata server/,
    );
    assert.equal(agents.counts.connections, 0);
  });
});
