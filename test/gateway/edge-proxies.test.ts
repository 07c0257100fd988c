/**
 * The gateway under a path of the site's origin behind the edge rules checked in
 * (examples/edge/): the Cloudflare Worker itself, run on a local server that hands it requests as
 * Cloudflare does (`CF-Connecting-IP` from the connection), and a local proxy that applies the
 * Akamai rule's path match and header changes as Akamai does. Between them and the gateway, a
 * stand-in for Cloud Run's front end appends the address it sees to `X-Forwarded-For`. The
 * visitor (a client bound to 127.0.0.2) keeps its address and client hints through the hop, the
 * id cookie gets the site's domain, and nothing spoofs the trust rule: without the edge secret the
 * last hop is the visitor. The gateway runs with `origin_via: cloudflare` (`akamai` is read the
 * same way): no load balancer of the site's is trusted by its host then (client-ip.test.ts has the
 * `load_balancer` mode's rule).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { forwardTo } from '../support/proxy.ts';
import { baseSettings, FakePublisher, ORIGIN, startTestGateway, type TestGateway } from './support.ts';

const SECRET = 'edge-secret-for-tests';
const VISITOR = '127.0.0.2';
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

/** A request from the visitor's own address. */
function send(port: number, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port, path, method: body ? 'POST' : 'GET', localAddress: VISITOR, headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
};

const bodyOf = (req: import('node:http').IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });

describe('gateway: behind the edge rules of examples/edge', function () {
  this.timeout(30_000);
  const pub = new FakePublisher();
  let g: TestGateway;
  const servers: Server[] = [];
  let frontEnd = 0;
  let worker = 0;
  let akamai = 0;

  before(async () => {
    g = await startTestGateway({
      publisher: pub,
      trustProxy: true,
      edgeSecret: SECRET,
      settings: baseSettings({
        gateway: { origin_path: '/_eb', origin_via: 'cloudflare', cookie_domain: 'shop.example' },
      }),
    });
    // Cloud Run's front end: appends the address it sees, says https.
    const front = createServer((req, res) => {
      const xff = req.headers['x-forwarded-for'];
      const peer = req.socket.remoteAddress ?? '';
      forwardTo(g.port, req, res, {
        ...req.headers,
        'x-forwarded-for': xff ? `${xff},${peer}` : peer,
        'x-forwarded-proto': 'https',
      });
    });
    frontEnd = await listen(front);
    // Cloudflare: the Worker's fetch handler, given the request as Cloudflare hands it over.
    const { default: cf } = await import('../../examples/edge/cloudflare-worker.js');
    const cloudflare = createServer(async (req, res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        if (!HOP_BY_HOP.has(k) && typeof v === 'string') headers.set(k, v);
      headers.set('cf-connecting-ip', req.socket.remoteAddress ?? '');
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await bodyOf(req);
      const answer = await cf.fetch(
        new Request(`https://${req.headers.host}${req.url}`, {
          method: req.method ?? 'GET',
          headers,
          body: body ? new Uint8Array(body) : null,
        }),
        { GATEWAY: `http://127.0.0.1:${frontEnd}`, EDGE_SECRET: SECRET },
      );
      const out: Record<string, string | string[]> = {};
      answer.headers.forEach((v, k) => {
        if (k !== 'set-cookie' && k !== 'content-encoding' && k !== 'content-length') out[k] = v;
      });
      out['set-cookie'] = answer.headers.getSetCookie();
      res.writeHead(answer.status, out);
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    worker = await listen(cloudflare);
    // Akamai: the rule's path match, origin host and outgoing header changes, applied as written.
    const rule = JSON.parse(
      readFileSync(new URL('../../examples/edge/akamai-rule.json', import.meta.url), 'utf8'),
    );
    const paths: string[] = rule.criteria[0].options.values;
    const origin = rule.behaviors.find((b: { name: string }) => b.name === 'origin').options;
    const changes = rule.behaviors.filter((b: { name: string }) => b.name === 'modifyOutgoingRequestHeader');
    const ak = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] as string;
      const matched = paths.some((p) => (p.endsWith('/*') ? path.startsWith(p.slice(0, -1)) : path === p));
      if (!matched) {
        res.writeHead(404);
        res.end();
        return;
      }
      const vars: Record<string, string> = {
        'builtin.AK_CLIENT_IP': req.socket.remoteAddress ?? '',
        'builtin.AK_HOST': req.headers.host ?? '',
        'user.PMUSER_EVENTBUS_EDGE': SECRET,
      };
      const headers: IncomingHttpHeaders = { ...req.headers };
      assert.equal(origin.forwardHostHeader, 'ORIGIN_HOSTNAME');
      headers.host = origin.hostname;
      for (const { options: o } of changes)
        headers[o.customHeaderName.toLowerCase()] = o.newHeaderValue.replace(
          /\{\{([\w.]+)\}\}/g,
          (_: string, v: string) => vars[v] ?? '',
        );
      forwardTo(frontEnd, req, res, headers);
    });
    akamai = await listen(ak);
    servers.push(front, cloudflare, ak);
  });
  after(async () => {
    for (const s of servers) await new Promise((r) => s.close(r));
    await g?.close();
  });
  beforeEach(() => {
    pub.calls.length = 0;
  });

  const batch = JSON.stringify([
    { event_name: 'page_view', anonymous_id: 'anon-edge', consent: { analytics: 'granted' } },
  ]);
  const browser = (host: string) => ({
    host,
    origin: ORIGIN,
    'content-type': 'text/plain',
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) edge test',
    'sec-ch-ua-platform': '"Linux"',
  });
  const device = () => {
    const m = pub.calls.at(-1)?.messages[0];
    return (m ? JSON.parse(m.data.toString()) : {}).device as Record<string, unknown> | undefined;
  };

  for (const [name, port] of [
    ['the Cloudflare Worker', () => worker],
    ['the Akamai rule', () => akamai],
  ] as const)
    it(`${name}: the tag and a batch through it; the visitor's address, client hints and the site's cookie domain survive`, async () => {
      const tag = await send(port(), '/_eb/v1/tag.js', { host: 'shop.example' });
      assert.equal(tag.status, 200);
      const a = await send(port(), `/_eb/v1/topics/events?key=${g.key}`, browser('shop.example'), batch);
      assert.equal(a.status, 200);
      assert.equal(a.headers['access-control-allow-origin'], ORIGIN);
      assert.match(
        String(a.headers['set-cookie']),
        /^eventbus_anonymous_id=anon-edge; .*; Domain=shop\.example; Secure$/,
      );
      const d = device();
      assert.equal(d?.['ip'], VISITOR);
      assert.deepEqual(d?.['client_hints'], { platform: '"Linux"' });
    });

  it('trusts the hop before the last only from a proven edge, never from a host a sender names', async () => {
    const spoofed = { ...browser('gateway-abc.a.run.app'), 'x-forwarded-for': '198.51.100.7' };
    // Straight to the service's own address with a made-up hop: the last one, the visitor's own.
    await send(frontEnd, `/_eb/v1/topics/events?key=${g.key}`, spoofed, batch);
    assert.equal(device()?.['ip'], VISITOR);
    await send(
      frontEnd,
      `/_eb/v1/topics/events?key=${g.key}`,
      { ...spoofed, 'x-eventbus-edge': 'wrong' },
      batch,
    );
    assert.equal(device()?.['ip'], VISITOR);
    // The site's host under the path: with a Worker or rule in front there is no load balancer of
    // the site's to vouch for it, so the hop named is not taken.
    await send(
      frontEnd,
      `/_eb/v1/topics/events?key=${g.key}`,
      { ...browser('shop.example'), 'x-forwarded-for': '203.0.113.5' },
      batch,
    );
    assert.equal(device()?.['ip'], VISITOR);
    // Not under the path: the last hop.
    await send(
      frontEnd,
      `/v1/topics/events?key=${g.key}`,
      { ...browser('shop.example'), 'x-forwarded-for': '203.0.113.5' },
      batch,
    );
    assert.equal(device()?.['ip'], VISITOR);
  });
});
