/**
 * core/identity.ts: the canonical text and digest every stored event is known by. The digest is
 * written to the warehouse (payload_digest, insertId) and compared with what earlier versions
 * wrote, so the canonical text may never change: the single-string writer is held, on any JSON
 * value, to the definition it replaced (keys sorted at every depth, undefined members left out).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  canonicalJson,
  deliveryId,
  identityDigest,
  identityKey,
  payloadDigest,
} from '../../core/identity.ts';

/** The definition, as first written (map/join over sorted keys). */
function reference(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    const keys = Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The first surrogate code point, and how many there are. */
const SURROGATES = 0xd800;
const SURROGATE_COUNT = 0x800;

/**
 * fast-check's `fc.string({ unit: 'binary' })` unit as its own arbitrary: the n-th code point,
 * the surrogates skipped, from the same `nat`, so the same seed draws the same strings and they
 * shrink the same way. The built-in one turns a string back into its index through a map of all
 * 1.1 million code points, built when `fc.string` is made (0.7 CPU-s, most of this file's cost);
 * this one computes the index.
 */
const BINARY_UNIT = fc.nat({ max: 0x10ffff - SURROGATE_COUNT }).map(
  (n) => String.fromCodePoint(n < SURROGATES ? n : n + SURROGATE_COUNT),
  (value) => {
    const point = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (point === undefined || String.fromCodePoint(point) !== value) throw new Error('not one code point');
    if (point >= SURROGATES && point < SURROGATES + SURROGATE_COUNT) throw new Error('a surrogate');
    return point < SURROGATES ? point : point - SURROGATE_COUNT;
  },
);

describe('identity: canonical JSON and the payload digest', () => {
  it('sorts keys at every depth, keeps array order, leaves undefined members out', () => {
    const event = {
      event_name: 'purchase',
      data: {
        value: 12.5,
        items: [
          { sku: 'b', q: 1 },
          { q: 2, sku: 'a' },
        ],
        coupon: undefined,
      },
      context: { user: { email: 'a@b.c' }, consent: null },
      event_id: 'e1',
    };
    assert.equal(
      canonicalJson(event),
      '{"context":{"consent":null,"user":{"email":"a@b.c"}},"data":{"items":[{"q":1,"sku":"b"},{"q":2,"sku":"a"}],"value":12.5},"event_id":"e1","event_name":"purchase"}',
    );
    assert.equal(canonicalJson([undefined, () => 1, 'x']), '[null,null,"x"]');
    assert.equal(canonicalJson({}), '{}');
    assert.equal(canonicalJson([]), '[]');
    assert.equal(canonicalJson({ a: undefined }), '{}');
  });

  it('writes what one JSON.stringify cannot vouch for as the definition does', () => {
    const unusual: unknown[] = [
      // Array-index keys: V8 lists them first, in numeric order, whatever the insertion order.
      { b: 1, 10: 'ten', 9: 'nine', a: { 2: 'x', '01': 'y', z: 0 } },
      JSON.parse('{"z":1,"__proto__":{"polluted":true},"a":[1,{"__proto__":2}]}'),
      { when: new Date(0), list: [new Date(0)] }, // toJSON is not called: an object with no keys
      { f: () => 1, s: Symbol('s'), list: [() => 1, undefined, Symbol('t')] },
      [{ 0: 'a' }, { '': 'empty key', ' ': 'space' }],
      Object.assign(Object.create(null) as object, { b: 2, a: 1 }),
      // One unusual member at a time, and undefined and null members beside one.
      { f: () => 1 },
      { s: Symbol('s') },
      { f: () => 1, u: undefined, n: null },
    ];
    for (const value of unusual) assert.equal(canonicalJson(value), reference(value));
    assert.equal(canonicalJson(undefined), reference(undefined));
  });

  it('gives exactly the text of its first definition for any JSON value, and the same digest', () => {
    // Keys and strings from the whole of Unicode (every code point but the surrogates), JSON's
    // escapes included: fast-check's `unit: 'binary'`, written out (see BINARY_UNIT).
    const text = fc.string({ unit: BINARY_UNIT, maxLength: 12 });
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(null, true, false, 0, -0, 1e21, 1.5e-7, Number.MAX_SAFE_INTEGER),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        text,
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(text, tie('value'), { maxKeys: 6 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        const canonical = canonicalJson(value);
        assert.equal(canonical, reference(value));
        if (value !== null && typeof value === 'object') {
          assert.equal(payloadDigest(value), createHash('sha256').update(reference(value)).digest('hex'));
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('keys an identity by event id and digest; a row without a digest stands for any content', () => {
    assert.equal(identityKey('e1', 'abc'), 'e1/abc');
    assert.equal(identityKey('e1', null), 'e1/');
    assert.equal(identityKey('e1', undefined), 'e1/');
  });
});

describe('identity: the digest of what the producer sent, and the delivery id', () => {
  /** An event as identityDigest reads it, with whatever else it holds. */
  type Event = Parameters<typeof identityDigest>[0] & Record<string, unknown>;
  const sent: Event = { event_id: 'e1', event_name: 'purchase', data: { value: 3 } };
  const received: Event = {
    ...sent,
    event_time: '2026-11-27T08:00:00.000Z',
    session_id: 's1',
    device: { ip: '203.0.113.9', user_agent: 'UA/1' },
  };

  it('is the payload digest when the server filled nothing in, or only a minted event_id', () => {
    assert.equal(identityDigest(received, undefined), payloadDigest(received));
    assert.equal(identityDigest(received, []), payloadDigest(received));
    assert.equal(identityDigest(received, ['event_id']), payloadDigest(received));
  });

  it('leaves out the time, session and device fields the server filled in, so a retry from elsewhere agrees', () => {
    const retry: Event = {
      ...received,
      event_time: '2026-11-27T08:01:00.000Z',
      session_id: 's2',
      device: { ip: '198.51.100.1', user_agent: 'UA/1' },
    };
    const filled = ['event_time', 'session_id', 'device.ip'];
    assert.equal(identityDigest(retry, filled), identityDigest(received, filled));
    assert.equal(
      identityDigest(received, filled),
      payloadDigest({ ...sent, device: { user_agent: 'UA/1' } }),
      'what the producer sent, the user agent it sent included',
    );
    // Every device field the server's: no device at all, as when the producer sent none.
    assert.equal(
      identityDigest(received, ['event_time', 'session_id', 'device.ip', 'device.user_agent']),
      payloadDigest(sent),
    );
    // A device the producer sent stays, even empty, when the server filled none of it.
    const empty: Event = { ...sent, event_time: '2026-11-27T08:00:00.000Z', device: {} };
    assert.equal(identityDigest(empty, ['event_id', 'event_time']), payloadDigest({ ...sent, device: {} }));
    // A device field named where the event has no device: nothing to take out.
    assert.equal(identityDigest(sent, ['device.ip']), payloadDigest(sent));
  });

  it('keeps a minted event_id beside other server fields: it tells two equal bodies apart', () => {
    const minted = (event_id: string): Event => ({ ...received, event_id });
    const a = identityDigest(minted('minted-1'), ['event_id', 'event_time']);
    const b = identityDigest(minted('minted-2'), ['event_id', 'event_time']);
    assert.notEqual(a, b);
    assert.equal(
      a,
      payloadDigest({ ...sent, event_id: 'minted-1', session_id: 's1', device: received.device }),
    );
  });

  it('names one delivery by event id, digest and destination, each part telling two apart', () => {
    const id = deliveryId('e1', 'ab', 'meta');
    assert.match(id, /^[0-9a-f]{64}$/);
    assert.equal(id, createHash('sha256').update('e1\nab\nmeta').digest('hex'));
    assert.equal(
      deliveryId('e1', undefined, 'meta'),
      createHash('sha256').update('e1\n\nmeta').digest('hex'),
    );
    assert.notEqual(deliveryId('e2', 'ab', 'meta'), id);
    assert.notEqual(deliveryId('e1', 'ac', 'meta'), id);
    assert.notEqual(deliveryId('e1', 'ab', 'ga4'), id);
  });
});
