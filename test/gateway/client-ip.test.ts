/**
 * Which `X-Forwarded-For` hop is a browser's address (gateway/runtime.ts clientOf): the last on
 * Cloud Run's own front end (run.app, a domain mapping); the one before the last for a request to
 * `gateway.domain` through its load balancer, which appends `<client-ip>,<load-balancer-ip>`
 * (docs/browser.md#first-party-domains). Table-driven over the request's host and header.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { Principal } from '../../gateway/auth.ts';
import { clientOf, type Runtime } from '../../gateway/runtime.ts';
import type { Settings } from '../../schemas/settings.ts';

const ORIGIN = 'https://shop.example';
const KEY: Principal = { kind: 'key', id: 'wk_1', origins: [ORIGIN] };
const DOMAIN = 'collect.shop.example';
const RUN_APP = 'gateway-123456789012.europe-west1.run.app';
const base: Settings = { name: 'shop', project: 'shop-events-prod', region: 'europe-west1' };

/** Only what clientOf reads of a runtime: its settings and whether it trusts the proxy. */
const runtime = (settings: Settings, trustProxy = true) =>
  ({ config: { settings, trustProxy } }) as unknown as Runtime;
const request = (host: string, xff: string | undefined, url = '/v1/topics/events') =>
  ({
    url,
    headers: {
      host,
      origin: ORIGIN,
      'user-agent': 'Mozilla/5.0',
      ...(xff ? { 'x-forwarded-for': xff } : {}),
    },
    socket: { remoteAddress: '169.254.1.1' },
  }) as unknown as IncomingMessage;
const ipOf = (settings: Settings, host: string, xff: string | undefined, trustProxy = true, url?: string) =>
  (clientOf(runtime(settings, trustProxy), request(host, xff, url), KEY) as { ip?: string }).ip;

const LB: Settings = { ...base, gateway: { domain: DOMAIN } };
const MAPPING: Settings = { ...base, gateway: { domain: DOMAIN, domain_via: 'mapping' } };

describe('gateway: the visitor is the hop Google appended, through run.app, a mapping or the load balancer', () => {
  const cases: [string, Settings, string, string | undefined, string | undefined][] = [
    ['run.app, no domain: the last hop', base, RUN_APP, '198.51.100.7', '198.51.100.7'],
    [
      'run.app, a forged hop before it: still the last',
      base,
      RUN_APP,
      '10.0.0.1, 198.51.100.7',
      '198.51.100.7',
    ],
    [
      'the domain through the load balancer: the hop before its address',
      LB,
      DOMAIN,
      '198.51.100.7,203.0.113.10',
      '198.51.100.7',
    ],
    [
      'the load balancer after a forged hop: still the one it appended',
      LB,
      DOMAIN,
      '10.0.0.1, 198.51.100.7,203.0.113.10',
      '198.51.100.7',
    ],
    [
      'the host with a port and in capitals',
      LB,
      'Collect.Shop.Example:443',
      '198.51.100.7,203.0.113.10',
      '198.51.100.7',
    ],
    [
      'run.app while the load balancer is on: the last hop',
      LB,
      RUN_APP,
      '10.0.0.1, 198.51.100.7',
      '198.51.100.7',
    ],
    [
      "a mapped domain: Cloud Run's front end, the last hop",
      MAPPING,
      DOMAIN,
      '10.0.0.1, 198.51.100.7',
      '198.51.100.7',
    ],
    ['a single hop to the domain: that hop', LB, DOMAIN, '198.51.100.7', '198.51.100.7'],
    ['no header: the socket', LB, DOMAIN, undefined, '169.254.1.1'],
  ];
  for (const [name, settings, host, xff, want] of cases)
    it(name, () => assert.equal(ipOf(settings, host, xff), want));

  // gateway.origin_path, per gateway.origin_via (docs/browser.md#same-origin-path): the site's
  // load balancer is known by the site's host under the path; a Worker or an Akamai rule only by
  // the edge secret (test/gateway/edge-proxies.test.ts), never by a host it could make up.
  const SITE = 'shop.example';
  const UNDER = '/_eb/v1/topics/events';
  const viaSite = (origin_via?: 'load_balancer' | 'cloudflare' | 'akamai'): Settings => ({
    ...base,
    gateway: { origin_path: '/_eb', ...(origin_via ? { origin_via } : {}) },
  });
  const HOPS = '10.0.0.1, 198.51.100.7,203.0.113.10';
  for (const [name, settings, want] of [
    [
      'origin_path with no origin_via: the site’s load balancer, the hop before the last',
      viaSite(),
      '198.51.100.7',
    ],
    ['origin_via load_balancer: the hop before the last', viaSite('load_balancer'), '198.51.100.7'],
    [
      'origin_via cloudflare, no edge secret: the last hop, whatever the host',
      viaSite('cloudflare'),
      '203.0.113.10',
    ],
    ['origin_via akamai, no edge secret: the last hop, whatever the host', viaSite('akamai'), '203.0.113.10'],
  ] as const)
    it(name, () => assert.equal(ipOf(settings, SITE, HOPS, true, UNDER), want));

  it('reads no header when the proxy is not trusted (off Cloud Run)', () =>
    assert.equal(ipOf(LB, DOMAIN, '198.51.100.7,203.0.113.10', false), '169.254.1.1'));
});
