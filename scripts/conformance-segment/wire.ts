/**
 * The wire of the conformance run (worker.ts, the CI tier): a request as it leaves, its comparison
 * with the one Segment's own code sends for the same input, and the runtimes broken on purpose that
 * the runner's own tests run it with (test/delivery/conformance/conformance-mutations.test.ts).
 * Pure, but for the mutations, which wrap a fetch.
 */

/** One request as sent: method, full URL, headers (names lower-cased), the body as text ('' for none). */
export interface Wire {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A request with its header names lower-cased and sorted, its method upper-cased. */
export function normalWire(w: Wire): Wire {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(w.headers).sort(([a], [b]) => a.localeCompare(b)))
    headers[k.toLowerCase()] = v;
  return { method: w.method.toUpperCase(), url: w.url, headers, body: w.body };
}

const excerpt = (s: string) => (s.length > 80 ? `${s.slice(0, 80)}…` : s);

/** How `ours` differs from `theirs` (Segment's), request by request; undefined when every one is the same. */
export function wireDiff(ours: readonly Wire[], theirs: readonly Wire[]): string | undefined {
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    const o = ours[i];
    const t = theirs[i];
    if (!o) return `request ${i + 1}: Segment's code sends ${t?.method} ${t?.url}, ours sends nothing`;
    if (!t) return `request ${i + 1}: ours sends ${o.method} ${o.url}, Segment's code sends nothing`;
    const a = normalWire(o);
    const b = normalWire(t);
    if (a.method !== b.method || a.url !== b.url)
      return `request ${i + 1}: ours is ${a.method} ${a.url}, Segment's ${b.method} ${b.url}`;
    for (const name of new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]))
      if (a.headers[name] !== b.headers[name])
        return `request ${i + 1}: header ${name} is ${a.headers[name] === undefined ? 'absent' : 'different'} in ours`;
    if (!sameBody(a.body, b.body))
      return `request ${i + 1}: body differs (ours ${excerpt(a.body)}, Segment's ${excerpt(b.body)})`;
  }
  return undefined;
}

/** A JSON value with every object's keys sorted, as text (undefined when `text` is not JSON). */
function canonicalJson(text: string): string | undefined {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
              .map(([k, x]) => [k, sorted(x)]),
          )
        : v;
  try {
    return JSON.stringify(sorted(JSON.parse(text)));
  } catch {
    return undefined;
  }
}

/**
 * The same body: the same text, or the same JSON value with its objects' keys in another order (the
 * order of a mapping's fields is not Segment's contract: its app saves a mapping in any order).
 */
function sameBody(a: string, b: string): boolean {
  if (a === b) return true;
  const x = canonicalJson(a);
  return x !== undefined && x === canonicalJson(b);
}

/**
 * The ways the runner's own tests break our runtime, each of which the run must notice;
 * `send-alone` breaks only batch cases: each of their events is sent alone, not in a batch.
 */
export const MUTATIONS = [
  'drop-header',
  'alter-body',
  'send-nothing',
  'refuse-settings',
  'send-alone',
] as const;
export type Mutation = (typeof MUTATIONS)[number];

export function isMutation(value: string | undefined): value is Mutation {
  return (MUTATIONS as readonly string[]).includes(value ?? '');
}

/**
 * A fetch broken the way `mutation` says, in front of `send` (the transport): `drop-header` drops
 * `authorization` (else the first header), `alter-body` adds a field to a JSON object body (else a
 * character), `send-nothing` answers 200 `{}` without sending. `refuse-settings` and `send-alone`
 * are not the transport's (worker.ts refuses the run before any action, or runs a batch case's
 * events without batches): `send` as it is.
 */
export function mutatedFetch(mutation: Mutation, send: typeof fetch): typeof fetch {
  return async (input, init) => {
    if (mutation === 'send-nothing') return new Response('{}', { status: 200 });
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    let body = typeof init?.body === 'string' ? init.body : undefined;
    if (mutation === 'drop-header')
      delete headers['authorization' in headers ? 'authorization' : (Object.keys(headers)[0] ?? '')];
    if (mutation === 'alter-body' && body !== undefined) body = alteredBody(body);
    return send(input, { ...init, headers, ...(body !== undefined ? { body } : {}) });
  };
}

function alteredBody(body: string): string {
  try {
    const value: unknown = JSON.parse(body);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return JSON.stringify({ ...value, conformance_mutation: true });
  } catch {
    // not JSON: altered as text below
  }
  return `${body}x`;
}
