/**
 * The egress policy (core/egress/policy.ts): which addresses, URLs and headers the gate refuses,
 * and why. Pure: nothing here resolves or connects (the gate's own tests: test/delivery/egress-gate.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  checkTarget,
  parseAllowList,
  parseIpv6,
  refusedAddress,
  refusedHeaders,
} from '../../../core/egress/policy.ts';

const none = parseAllowList(undefined);

function refusal(url: string, allow = none): string {
  const t = checkTarget(url, allow);
  assert.ok('refused' in t, `${url} should be refused`);
  return t.refused;
}

describe('egress policy: addresses', () => {
  const refused: [string, RegExp][] = [
    ['169.254.169.254', /metadata server/],
    ['fd00:ec2::254', /metadata server/],
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['::1', /loopback/],
    ['0.0.0.0', /unspecified/],
    ['::', /unspecified/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.1.1', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['::ffff:169.254.169.254', /IPv4-mapped.*169\.254\.169\.254/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped.*metadata server/],
    ['::ffff:8.8.8.8', /IPv4-mapped/],
    ['fc00::1', /unique local/],
    ['fe80::1%eth0', /link-local/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /reserved/],
  ];
  for (const [address, why] of refused)
    it(`refuses ${address}`, () => assert.match(refusedAddress(address) ?? '', why));

  for (const address of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2a00:1450:4001:80b::200e', '1.1.1.1'])
    it(`takes the public address ${address}`, () => assert.equal(refusedAddress(address), undefined));

  it('reads IPv6 in every written form, an embedded IPv4 included', () => {
    assert.deepEqual(parseIpv6('::ffff:10.0.0.1'), [0, 0, 0, 0, 0, 0xffff, 0x0a00, 0x0001]);
    assert.deepEqual(parseIpv6('[fd00:ec2::254]'), [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]);
    assert.equal(parseIpv6('1::2::3'), undefined);
    assert.equal(parseIpv6('not-an-address'), undefined);
  });
});

describe('egress policy: URLs', () => {
  it('refuses the metadata server by name and by every spelling of its address', () => {
    assert.match(refusal('https://metadata.google.internal/computeMetadata/v1/'), /metadata server/);
    assert.match(refusal('http://169.254.169.254/computeMetadata/v1/'), /metadata server/);
    assert.match(refusal('http://2852039166/'), /metadata server/);
    assert.match(refusal('http://0xa9.0xfe.0xa9.0xfe/'), /metadata server/);
    assert.match(refusal('https://[::ffff:169.254.169.254]/'), /IPv4-mapped/);
    assert.match(refusal('https://[fd00:ec2::254]/'), /metadata server/);
  });

  it('refuses loopback, private and CGNAT literals, and localhost names', () => {
    assert.match(refusal('https://127.0.0.1:8090/v1/admin/apply'), /loopback/);
    assert.match(refusal('https://localhost:8085/'), /loopback/);
    assert.match(refusal('https://api.localhost/'), /loopback/);
    assert.match(refusal('https://10.1.2.3/'), /private/);
    assert.match(refusal('https://100.64.0.9/'), /carrier-grade/);
    assert.match(refusal('https://[::1]/'), /loopback/);
  });

  it('refuses every scheme but https, http too', () => {
    assert.match(refusal('file:///etc/passwd'), /file: scheme/);
    assert.match(refusal('data:text/plain,hello'), /data: scheme/);
    assert.match(refusal('gopher://example.com/'), /gopher: scheme/);
    assert.match(refusal('http://api.example.com/hook'), /over http/);
    assert.match(refusal('not a url'), /not a URL/);
  });

  it('takes an https URL to a public name (its address is checked once resolved)', () => {
    const t = checkTarget('https://api.example.com/hook?x=1', none);
    assert.ok(!('refused' in t));
    assert.equal(t.host, 'api.example.com');
    assert.equal(t.literal, false);
    assert.equal(t.allowListed, false);
  });

  it('takes an allow-listed origin as it is, and nothing else on that host', () => {
    const allow = parseAllowList('http://127.0.0.1:8099, http://[::1]:9000');
    const ok = checkTarget('http://127.0.0.1:8099/capture/x', allow);
    assert.ok(!('refused' in ok) && ok.allowListed);
    assert.match(refusal('http://127.0.0.1:8090/v1/admin/apply', allow), /loopback/);
    assert.ok(!('refused' in checkTarget('http://[::1]:9000/', allow)));
  });

  it('an allow-list entry must be an origin', () => {
    assert.throws(() => parseAllowList('http://127.0.0.1:8099/path'), /not an origin/);
    assert.throws(() => parseAllowList('*.example.com'), /not an origin/);
    assert.throws(() => parseAllowList('file:///tmp'), /not an origin/);
    assert.equal(parseAllowList('').size, 0);
  });
});

describe('egress policy: headers', () => {
  it('refuses Host, hop-by-hop headers and CR/LF; takes ordinary ones', () => {
    assert.match(refusedHeaders({ Host: 'metadata.google.internal' }) ?? '', /Host is set by the sender/);
    assert.match(refusedHeaders({ 'transfer-encoding': 'chunked' }) ?? '', /set by the sender/);
    assert.match(refusedHeaders({ Connection: 'close' }) ?? '', /set by the sender/);
    assert.match(refusedHeaders({ 'x-a': 'b\r\nHost: evil' }) ?? '', /CR, LF/);
    assert.match(refusedHeaders({ 'x-a\nb': 'c' }) ?? '', /CR, LF/);
    assert.match(refusedHeaders({ 'x a': 'c' }) ?? '', /not a header name/);
    assert.equal(
      refusedHeaders({ authorization: 'Bearer t', 'content-type': 'application/json' }),
      undefined,
    );
  });
});

/** A hostile case of test/fixtures/hostile/egress/addresses-and-headers.json: the input, and the verdict expected beside it. */
interface HostileCase {
  readonly name: string;
  readonly kind: 'address' | 'url' | 'headers';
  readonly input: string | Record<string, string>;
  readonly expect: { readonly verdict: 'refused' | 'sent'; readonly why?: string };
}

describe('egress policy: a Host header naming the URL’s own host', () => {
  it('is taken (Segment’s IQM action sets one); any other Host is refused', () => {
    const url = new URL('https://postback.iqm.com/?a=1');
    assert.equal(refusedHeaders({ HOST: 'postback.iqm.com' }, url), undefined);
    assert.equal(refusedHeaders({ host: 'PostBack.IQM.com ' }, url), undefined);
    assert.match(
      refusedHeaders({ HOST: 'metadata.google.internal' }, url) ?? '',
      /HOST is set by the sender/,
    );
    assert.match(refusedHeaders({ HOST: 'postback.iqm.com:8443' }, url) ?? '', /set by the sender/);
    assert.match(
      refusedHeaders({ HOST: 'postback.iqm.com' }) ?? '',
      /set by the sender/,
      'no target: refused',
    );
    const ported = new URL('https://hooks.example.com:8443/x');
    assert.equal(refusedHeaders({ host: 'hooks.example.com:8443' }, ported), undefined);
    assert.match(refusedHeaders({ host: 'hooks.example.com' }, ported) ?? '', /set by the sender/);
  });
});

describe('egress policy: hostile cases (test/fixtures/hostile/egress/addresses-and-headers.json)', () => {
  const cases = JSON.parse(
    readFileSync(
      new URL('../../fixtures/hostile/egress/addresses-and-headers.json', import.meta.url),
      'utf8',
    ),
  ) as HostileCase[];
  const verdictOf = (c: HostileCase): string | undefined => {
    if (c.kind === 'address') return refusedAddress(c.input as string);
    if (c.kind === 'headers') return refusedHeaders(c.input as Record<string, string>);
    const t = checkTarget(c.input as string, none);
    return 'refused' in t ? t.refused : undefined;
  };
  for (const c of cases)
    it(`${c.name}: ${c.expect.verdict}`, () => {
      const why = verdictOf(c);
      if (c.expect.verdict === 'sent') assert.equal(why, undefined);
      else assert.ok(why?.includes(c.expect.why ?? ''), `${JSON.stringify(why)} should name ${c.expect.why}`);
    });
});
