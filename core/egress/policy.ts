/**
 * The egress policy (docs/security.md, "Egress"): where a request to a third party may go, and
 * which headers it may carry. Pure: the gate that applies it (adapters/egress.ts) resolves names
 * and opens connections; this file only judges URLs, addresses and headers, and says why in words
 * that end up in the ledger row (`egress refused: <why>`).
 *
 * A target is refused unless it is https and its host, once resolved, is a public unicast address.
 * The one exception is an explicit allow-list of origins given by configuration (locally, the
 * supervisor lists its stand-ins): an allowed origin is taken as it is, http included.
 */

/** How every refusal's reason begins (the ledger row, the log line). */
export const EGRESS_REFUSED = 'egress refused';

/** The `code` of an error that carries a refusal through code that expects a fetch (Segment's actions). */
export const EGRESS_REFUSED_CODE = 'egress-refused';

/** Names that reach the cloud metadata server (or mean "this machine") whatever DNS says. */
const REFUSED_NAMES: ReadonlyMap<string, string> = new Map([
  ['metadata.google.internal', 'the metadata server'],
  ['metadata', 'the metadata server'],
  ['localhost', 'a loopback address'],
]);

/** Headers the platform request may not set: the gate owns framing and the connection. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);

/**
 * The only headers a request keeps when a redirect takes it to another origin: they describe the
 * body or the client, never who it is. Every other header (Authorization, Cookie, and every
 * `x-api-key` or token a destination's secrets or settings supplied) stays with the origin the
 * request was built for.
 */
export const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-language',
  'content-language',
  'content-type',
  'user-agent',
]);

/** Why an IP address may not be reached, or undefined when it is a public unicast address. */
export function refusedAddress(address: string): string | undefined {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return refusedIpv4(v4);
  const v6 = parseIpv6(address);
  if (v6 === undefined) return `${address} is not an IP address`;
  return refusedIpv6(v6);
}

function refusedIpv4(a: readonly number[]): string | undefined {
  const [x = 0, y = 0, z = 0, w = 0] = a;
  if (x === 169 && y === 254 && z === 169 && w === 254) return 'the metadata server';
  if (x === 127) return 'a loopback address';
  if (x === 0) return 'an unspecified address (this host)';
  if (x === 10 || (x === 172 && y >= 16 && y < 32) || (x === 192 && y === 168)) return 'a private address';
  if (x === 169 && y === 254) return 'a link-local address';
  if (x === 100 && y >= 64 && y < 128) return 'a carrier-grade NAT address (100.64.0.0/10)';
  if (x === 192 && y === 0 && (z === 0 || z === 2)) return 'a reserved address';
  if (x === 192 && y === 88 && z === 99) return 'a 6to4 relay anycast address (192.88.99.0/24)';
  if (x === 198 && (y === 18 || y === 19)) return 'a benchmarking address';
  if ((x === 198 && y === 51 && z === 100) || (x === 203 && y === 0 && z === 113))
    return 'a reserved address';
  if (x >= 224) return 'a multicast or reserved address';
  return undefined;
}

function refusedIpv6(g: readonly number[]): string | undefined {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h6 = 0, h7 = 0] = g;
  const v4 = [h6 >> 8, h6 & 0xff, h7 >> 8, h7 & 0xff];
  const zeroHead = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  // ::ffff:a.b.c.d reaches the IPv4 address itself: refused whatever that address is.
  if (zeroHead && f === 0xffff)
    return `an IPv4-mapped IPv6 address (${v4.join('.')}: ${refusedIpv4(v4) ?? 'mapped'})`;
  if (zeroHead && f === 0 && h6 === 0 && h7 === 1) return 'a loopback address';
  if (zeroHead && f === 0 && h6 === 0 && h7 === 0) return 'an unspecified address (this host)';
  if (zeroHead && f === 0) return 'an IPv4-compatible IPv6 address';
  // ::ffff:0:a.b.c.d (::ffff:0:0/96, SIIT's IPv4-translated form) names an IPv4 address too.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0xffff && f === 0)
    return `an IPv4-translated IPv6 address (${v4.join('.')})`;
  if (a === 0x100 && b === 0 && c === 0 && d === 0) return 'a discard-only address (100::/64)';
  if (a === 0xfd00 && b === 0x0ec2 && c === 0 && d === 0 && e === 0 && f === 0 && h6 === 0 && h7 === 0x254)
    return 'the metadata server';
  if (a === 0x64 && b === 0xff9b) return 'a NAT64 address';
  if ((a & 0xfe00) === 0xfc00) return 'a private (unique local) address';
  if ((a & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((a & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((a & 0xff00) === 0xff00) return 'a multicast address';
  if (a === 0x2001 && b === 0x0db8) return 'a documentation address';
  if (a === 0x2002) return 'a 6to4 address';
  if (a === 0x2001 && b === 0) return 'a Teredo address';
  return undefined;
}

/** Four octets of a dotted-quad IPv4 address (the form URL parsers and resolvers give), else undefined. */
export function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

/** The eight 16-bit groups of an IPv6 address (brackets and a zone allowed), else undefined. */
export function parseIpv6(text: string): number[] | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const side = (part: string | undefined): number[] | undefined => {
    if (part === undefined || part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (const [i, p] of pieces.entries()) {
      const v4 = i === pieces.length - 1 && p.includes('.') ? parseIpv4(p) : undefined;
      if (v4) {
        out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(p)) return undefined;
      out.push(Number.parseInt(p, 16));
    }
    return out;
  };
  const head = side(halves[0]);
  const tail = side(halves[1]);
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** Where a checked URL goes: what the gate connects to, and whether it needs its address checked. */
export interface EgressTarget {
  readonly url: URL;
  /** The host as a connection takes it: an IPv6 literal without its brackets. */
  readonly host: string;
  /** The host is an IP literal (checked here); otherwise a name the gate resolves and checks. */
  readonly literal: boolean;
  /** On the configured allow-list: sent as it is, address unchecked. */
  readonly allowListed: boolean;
}

/**
 * The configured exceptions: origins such as `http://127.0.0.1:8099` (normalized by the URL
 * parser), and the setting they came from, which a refusal names as the way out.
 */
export type AllowList = ReadonlySet<string> & { readonly setting?: string };

/**
 * Reads an allow-list as configuration gives it: origins separated by commas or spaces. Throws
 * on an entry that is not an http(s) origin (a path, a wildcard), so a typo is seen at start.
 */
export function parseAllowList(text: string | undefined, setting?: string): AllowList {
  const out: Set<string> & { setting?: string } = new Set<string>();
  if (setting !== undefined) out.setting = setting;
  for (const entry of (text ?? '').split(/[\s,]+/)) {
    if (entry === '') continue;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new Error(`egress allow-list: "${entry}" is not an origin such as http://127.0.0.1:8099`);
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/$/, ''))
      throw new Error(`egress allow-list: "${entry}" is not an origin such as http://127.0.0.1:8099`);
    out.add(url.origin);
  }
  return out;
}

/** A URL the gate may send to, or why not. The address of a name is checked once resolved (`refusedAddress`). */
export function checkTarget(text: string, allow: AllowList): EgressTarget | { readonly refused: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refused: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { refused: `the ${url.protocol} scheme (only https is sent to)` };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literal = parseIpv4(host) !== undefined || parseIpv6(host) !== undefined;
  if (allow.has(url.origin)) return { url, host, literal, allowListed: true };
  // Where before how: the reason names the metadata server, not only the scheme.
  const inside = insideReason(host, literal);
  if (inside) return { refused: `${url.host} is ${inside}${allowHint(url, allow, inside)}` };
  if (url.protocol !== 'https:')
    return { refused: `${url.host} over http (only https is sent to)${allowHint(url, allow)}` };
  return { url, host, literal, allowListed: false };
}

/** What an internal host is (a loopback address, the metadata server, an internal name), or undefined. */
function insideReason(host: string, literal: boolean): string | undefined {
  if (literal) return refusedAddress(host);
  const name = host.toLowerCase().replace(/\.$/, '');
  const known = REFUSED_NAMES.get(name) ?? (name.endsWith('.localhost') ? 'a loopback address' : undefined);
  if (known) return known;
  return name.endsWith('.internal') ? 'an internal name' : undefined;
}

/**
 * What a refused target's reason adds so the way out is named: the allow-list, and the origin to
 * put on it (a local stand-in, a test's capture server). Never for the metadata server, which no
 * configuration should open.
 */
function allowHint(url: URL, allow: AllowList, why?: string): string {
  if (why === REFUSED_NAMES.get('metadata')) return '';
  const list = allow.setting ?? 'the egress allow-list';
  return ` and not on ${list} (a stand-in of yours is reached once that list names ${url.origin})`;
}

/**
 * Why a request's headers may not be sent, or undefined: no CR or LF anywhere (a header cannot
 * smuggle another), and none of the headers the gate owns (Host, the hop-by-hop ones,
 * Expect; Content-Length is always the sender's own): whatever a mapping says, the request goes to its URL's host as one request.
 * The one Host taken is one naming `target`'s own host, the host the request goes to anyway.
 */
export function refusedHeaders(headers: Readonly<Record<string, string>>, target?: URL): string | undefined {
  for (const name in headers) {
    const value = headers[name] ?? '';
    if (/[\r\n\0]/.test(name) || /[\r\n\0]/.test(value))
      return `header ${JSON.stringify(name)} holds CR, LF or NUL`;
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      return `header ${JSON.stringify(name)} is not a header name`;
    // What HTTP/1.1 can carry in a value (tab, visible ASCII, Latin-1): anything else would make
    // node throw mid-send; it is a refusal like the others.
    if (/[^\t\x20-\x7e\x80-\xff]/.test(value))
      return `header ${name} holds a character HTTP cannot carry (outside Latin-1, or a control)`;
    // A Host naming the URL's own host says nothing new (Segment's IQM action sets one): taken.
    if (name.toLowerCase() === 'host' && target !== undefined && namesHost(value, target)) continue;
    if (HOP_BY_HOP.has(name.toLowerCase())) return `header ${name} is set by the sender, not the request`;
  }
  return undefined;
}

/** Whether a Host header's value is the URL's own host (`name`, or `name:port` as the URL has it). */
function namesHost(value: string, target: URL): boolean {
  const v = value.trim().toLowerCase();
  return v === target.host || (target.port === '' && v === target.hostname);
}

/**
 * Why a URL written in the settings points inside (its host is an internal literal or name), or
 * undefined; its scheme is left to the gate. For `settings check`'s warnings (core/settings.ts).
 */
export function pointsInside(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const inside = insideReason(host, parseIpv4(host) !== undefined || parseIpv6(host) !== undefined);
  return inside === undefined ? undefined : `${url.host} is ${inside}`;
}

/** Whether a URL's host (`name` or `name:port`, as URL.host gives it) is on a destination's `allowed_hosts`. */
export function hostAllowed(text: string, hosts: readonly string[]): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return hosts.some((h) => h.toLowerCase() === url.host || h.toLowerCase() === url.hostname);
}
