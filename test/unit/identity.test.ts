/**
 * core/identity.ts: the canonical text and digest every stored event is known by. The digest is
 * written to the warehouse (payload_digest, insertId) and compared with what earlier versions
 * wrote, so the canonical text may never change: the single-string writer is held, on any JSON
 * value, to the definition it replaced (keys sorted at every depth, undefined members left out).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalJson, identityKey, payloadDigest } from '../../core/identity.ts';

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
    ];
    for (const value of unusual) assert.equal(canonicalJson(value), reference(value));
  });

  it('gives exactly the text of its first definition for any JSON value, and the same digest', () => {
    // Keys and strings from the whole of Unicode, lone surrogates and JSON's escapes included.
    const text = fc.string({ unit: 'binary', maxLength: 12 });
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
