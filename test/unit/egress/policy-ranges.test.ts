/**
 * The egress policy at the edges of what it refuses (core/egress/policy.ts, docs/security.md
 * "Egress"): each special-purpose range at its first and last address and just outside them, the
 * reason a ledger row shows for each, the written forms of an address the parsers take or refuse,
 * and the helpers the settings checks and the redirect handling use. The mutation run of the
 * egress module (docs/testing.md) found these rules held by no test.
 */
import assert from 'node:assert/strict';
import {
  CROSS_ORIGIN_HEADERS,
  checkTarget,
  EGRESS_REFUSED,
  hostAllowed,
  parseAllowList,
  parseIpv4,
  parseIpv6,
  pointsInside,
  refusedAddress,
  refusedHeaders,
} from '../../../core/egress/policy.ts';

const PUBLIC = undefined;
const RESERVED = 'a reserved address';
const PRIVATE = 'a private address';

/** Each address and the reason it is refused for, or PUBLIC where it may be reached. */
function table(rows: readonly (readonly [string, string | undefined])[]): void {
  for (const [address, why] of rows)
    it(`${address}: ${why ?? 'public'}`, () => assert.equal(refusedAddress(address), why));
}

describe('egress policy: IPv4 ranges at their edges', () => {
  table([
    ['0.0.0.0', 'an unspecified address (this host)'],
    ['0.255.255.255', 'an unspecified address (this host)'],
    ['1.0.0.1', PUBLIC],
    ['9.255.255.255', PUBLIC],
    ['10.0.0.0', PRIVATE],
    ['10.255.255.255', PRIVATE],
    ['11.0.0.0', PUBLIC],
    ['100.63.255.255', PUBLIC],
    ['100.64.0.0', 'a carrier-grade NAT address (100.64.0.0/10)'],
    ['100.128.0.0', PUBLIC],
    ['101.64.0.1', PUBLIC],
    ['126.255.255.255', PUBLIC],
    ['127.0.0.0', 'a loopback address'],
    ['128.0.0.1', PUBLIC],
    ['168.254.169.254', PUBLIC],
    ['169.253.255.255', PUBLIC],
    ['169.1.169.254', PUBLIC],
    ['169.254.0.1', 'a link-local address'],
    ['169.254.169.253', 'a link-local address'],
    ['169.254.168.254', 'a link-local address'],
    ['169.254.169.254', 'the metadata server'],
    ['10.254.169.254', PRIVATE],
    ['169.255.0.1', PUBLIC],
    ['172.15.255.255', PUBLIC],
    ['172.16.0.0', PRIVATE],
    ['172.31.255.255', PRIVATE],
    ['172.32.0.0', PUBLIC],
    ['173.16.0.1', PUBLIC],
    ['192.0.0.1', RESERVED],
    ['192.0.1.1', PUBLIC],
    ['192.0.2.1', RESERVED],
    ['192.0.3.1', PUBLIC],
    ['192.1.0.1', PUBLIC],
    ['193.0.2.1', PUBLIC],
    ['192.88.98.255', PUBLIC],
    ['192.88.99.0', 'a 6to4 relay anycast address (192.88.99.0/24)'],
    ['192.89.99.1', PUBLIC],
    ['193.88.99.1', PUBLIC],
    ['192.167.255.255', PUBLIC],
    ['192.168.0.0', PRIVATE],
    ['192.169.0.0', PUBLIC],
    ['193.168.0.1', PUBLIC],
    ['198.17.255.255', PUBLIC],
    ['198.18.0.0', 'a benchmarking address'],
    ['198.19.255.255', 'a benchmarking address'],
    ['198.20.0.0', PUBLIC],
    ['199.18.0.1', PUBLIC],
    ['198.51.99.255', PUBLIC],
    ['198.51.100.0', RESERVED],
    ['198.51.101.0', PUBLIC],
    ['198.52.100.1', PUBLIC],
    ['197.51.100.1', PUBLIC],
    ['203.0.112.255', PUBLIC],
    ['203.0.113.0', RESERVED],
    ['203.0.114.0', PUBLIC],
    ['203.1.113.1', PUBLIC],
    ['204.0.113.1', PUBLIC],
    ['202.0.113.1', PUBLIC],
    ['223.255.255.255', PUBLIC],
    ['224.0.0.0', 'a multicast or reserved address'],
    ['240.0.0.1', 'a multicast or reserved address'],
  ]);
});

describe('egress policy: IPv6 ranges at their edges', () => {
  table([
    ['::', 'an unspecified address (this host)'],
    ['::1', 'a loopback address'],
    ['::2', 'an IPv4-compatible IPv6 address'],
    ['::1:0', 'an IPv4-compatible IPv6 address'],
    ['::1:1', 'an IPv4-compatible IPv6 address'],
    ['::8.8.8.8', 'an IPv4-compatible IPv6 address'],
    ['::ffff:8.8.8.8', 'an IPv4-mapped IPv6 address (8.8.8.8: mapped)'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped IPv6 address (127.0.0.1: a loopback address)'],
    ['::ffff:0:8.8.4.4', 'an IPv4-translated IPv6 address (8.8.4.4)'],
    ['2a00::1', PUBLIC],
    ['2a00::', PUBLIC],
    ['100::', 'a discard-only address (100::/64)'],
    ['101::1', PUBLIC],
    ['100:1::1', PUBLIC],
    ['100:0:1::1', PUBLIC],
    ['64:ff9b::8.8.8.8', 'a NAT64 address'],
    ['64:ff9c::1', PUBLIC],
    ['65:ff9b::1', PUBLIC],
    ['fbff::1', PUBLIC],
    ['fc00::', 'a private (unique local) address'],
    ['fdff:ffff::1', 'a private (unique local) address'],
    ['fe80::', 'a link-local address'],
    ['febf::1', 'a link-local address'],
    ['fec0::', 'a site-local address'],
    ['feff::1', 'a site-local address'],
    ['ff00::', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a documentation address'],
    ['2001:db9::1', PUBLIC],
    ['2a00:db8::1', PUBLIC],
    ['2002::1', 'a 6to4 address'],
    ['2003::1', PUBLIC],
    ['2001::1', 'a Teredo address'],
    ['2001:4860:4860::8888', PUBLIC],
    ['2000::1', PUBLIC],
  ]);

  it('takes only fd00:ec2::254 itself as the metadata server: each neighbour is a unique local address', () => {
    assert.equal(refusedAddress('fd00:ec2::254'), 'the metadata server');
    const neighbours = [
      'fd01:ec2::254',
      'fd00:ec3::254',
      'fd00:ec2:1::254',
      'fd00:ec2:0:1::254',
      'fd00:ec2:0:0:1::254',
      'fd00:ec2:0:0:0:1:0:254',
      'fd00:ec2::1:254',
      'fd00:ec2::255',
    ];
    for (const address of neighbours)
      assert.equal(refusedAddress(address), 'a private (unique local) address', address);
  });

  it('says when a text is no IP address at all', () => {
    assert.equal(refusedAddress('example.com'), 'example.com is not an IP address');
    assert.equal(refusedAddress('1.2.3.4x'), '1.2.3.4x is not an IP address');
  });
});

describe('egress policy: the written forms of an address', () => {
  it('reads an IPv4 address only as four decimal octets of at most 255', () => {
    assert.deepEqual(parseIpv4('192.0.2.255'), [192, 0, 2, 255]);
    for (const text of ['1.2.3', '1.2.3.4.5', '256.0.0.1', '1.2.3.4x', 'x1.2.3.4', '1.2.3.1000', '1..2.3'])
      assert.equal(parseIpv4(text), undefined, text);
  });

  it('reads an IPv6 address with or without its brackets, never with one of them', () => {
    assert.deepEqual(parseIpv6('[::1]'), [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.equal(parseIpv6('[::1'), undefined);
    assert.equal(parseIpv6('::1]'), undefined);
    assert.equal(parseIpv6('x::1]'), undefined);
  });

  it('refuses groups that are not one to four hex digits, and a gap or group count that does not make eight', () => {
    for (const text of ['12345::1', 'g1::1', '1g::1', 'g::1', '1::g', '1:2:3:4:5:6:7', '1:2:3:4::5:6:7:8'])
      assert.equal(parseIpv6(text), undefined, text);
    assert.deepEqual(parseIpv6('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.deepEqual(parseIpv6('1:2:3::4:5:6:7'), [1, 2, 3, 0, 4, 5, 6, 7]);
    assert.deepEqual(parseIpv6('1::'), [1, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('takes an embedded IPv4 address only as the last two groups', () => {
    assert.deepEqual(parseIpv6('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    assert.equal(parseIpv6('1.2.3.4:1::'), undefined);
    assert.equal(parseIpv6('::1.2.3.4:1'), undefined);
  });
});

describe('egress policy: URLs, names and the allow-list', () => {
  it('connects to an IPv6 literal without its brackets, and to a public literal as it is', () => {
    const v6 = checkTarget('https://[2a00:1450::1]/hook', new Set());
    assert.ok(!('refused' in v6));
    assert.equal(v6.host, '2a00:1450::1');
    assert.equal(v6.literal, true);
    const v4 = checkTarget('https://8.8.8.8/hook', new Set());
    assert.ok(!('refused' in v4));
    assert.equal(v4.literal, true);
  });

  const refusal = (url: string) => {
    const t = checkTarget(url, parseAllowList('', 'EVENTBUS_EGRESS_ALLOW'));
    return 'refused' in t ? t.refused : undefined;
  };

  it('refuses the metadata server by its short name, and names with a trailing dot as without', () => {
    assert.equal(refusal('https://metadata/computeMetadata/v1/'), 'metadata is the metadata server');
    assert.match(refusal('https://localhost./') ?? '', /^localhost\. is a loopback address and not on /);
    assert.equal(
      refusal('https://METADATA.google.internal./'),
      'metadata.google.internal. is the metadata server',
    );
    assert.match(refusal('https://db.internal/') ?? '', /^db\.internal is an internal name and not on /);
    assert.equal(refusal('https://internal.example.com/'), undefined);
  });

  it('names the allow-list setting and the origin to put on it when it refuses a stand-in', () => {
    assert.equal(
      refusal('http://127.0.0.1:8099/standin/a.klaviyo.com/api/events/'),
      '127.0.0.1:8099 is a loopback address and not on EVENTBUS_EGRESS_ALLOW (a stand-in of yours is reached once that list names http://127.0.0.1:8099)',
    );
    assert.equal(
      refusal('http://capture.example.com/x'),
      'capture.example.com over http (only https is sent to) and not on EVENTBUS_EGRESS_ALLOW (a stand-in of yours is reached once that list names http://capture.example.com)',
    );
    // The metadata server is never opened by configuration: no way out is suggested.
    assert.equal(
      refusal('http://169.254.169.254/computeMetadata/v1/'),
      '169.254.169.254 is the metadata server',
    );
    // Named on the list, the same origin is taken as it is.
    assert.ok(!('refused' in checkTarget('http://127.0.0.1:8099/x', new Set(['http://127.0.0.1:8099']))));
  });

  it('takes an allow-list origin written with a trailing slash, and no scheme but http and https', () => {
    assert.deepEqual([...parseAllowList('http://127.0.0.1:8099/')], ['http://127.0.0.1:8099']);
    assert.deepEqual([...parseAllowList('https://hooks.example.com')], ['https://hooks.example.com']);
    assert.throws(() => parseAllowList('ws://127.0.0.1:8099'), /not an origin/);
  });

  it('says where a settings URL points inside, leaving its scheme to the gate', () => {
    assert.equal(pointsInside('http://10.0.0.1/x'), '10.0.0.1 is a private address');
    assert.equal(pointsInside('https://localhost:8080/'), 'localhost:8080 is a loopback address');
    assert.equal(pointsInside('http://api.example.com/hook'), undefined);
    assert.equal(pointsInside('ftp://10.0.0.1/'), undefined);
    assert.equal(pointsInside('not a url'), undefined);
  });

  it("matches a URL's host against allowed_hosts by name or name:port, case aside", () => {
    const url = 'https://api.example.com:8443/x';
    assert.equal(hostAllowed(url, ['API.Example.com']), true);
    assert.equal(hostAllowed(url, ['api.example.com:8443']), true);
    assert.equal(hostAllowed(url, ['api.example.com:9000']), false);
    assert.equal(hostAllowed(url, ['example.com', 'other.example.com']), false);
    assert.equal(hostAllowed(url, []), false);
    assert.equal(hostAllowed('not a url', ['not a url']), false);
  });
});

describe('egress policy: headers', () => {
  it('refuses every hop-by-hop header and Expect, in any case', () => {
    for (const name of [
      'Keep-Alive',
      'Proxy-Authenticate',
      'Proxy-Authorization',
      'Proxy-Connection',
      'TE',
      'Trailer',
      'Upgrade',
      'Expect',
    ])
      assert.equal(refusedHeaders({ [name]: 'x' }), `header ${name} is set by the sender, not the request`);
  });

  it("lets only a Host header name the URL's own host", () => {
    const url = new URL('https://postback.iqm.com/');
    assert.match(refusedHeaders({ Upgrade: 'postback.iqm.com' }, url) ?? '', /set by the sender/);
  });

  it('keeps across origins only what describes the body or the client, never credentials', () => {
    assert.deepEqual([...CROSS_ORIGIN_HEADERS].sort(), [
      'accept',
      'accept-language',
      'content-language',
      'content-type',
      'user-agent',
    ]);
    for (const secret of ['authorization', 'cookie', 'x-api-key', 'proxy-authorization'])
      assert.equal(CROSS_ORIGIN_HEADERS.has(secret), false, secret);
  });

  it('begins every refusal as the ledger shows it (docs/security.md)', () => {
    assert.equal(EGRESS_REFUSED, 'egress refused');
  });
});
