/**
 * core/trace-context.ts: reading a producer's `traceparent` as the W3C recommendation says, and
 * the trace id a message's attributes carry (the `trace_id` of its rows).
 */
import assert from 'node:assert/strict';
import {
  formatTraceparent,
  GOOGLE_CLIENT_TRACEPARENT,
  parseTraceparent,
  TRACE_ATTRIBUTES,
  traceIdOf,
} from '../../../core/tracing/trace-context.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('trace context', () => {
  it('reads version 00 with its sampled flag, and writes it back', () => {
    const p = parseTraceparent(`00-${TRACE}-${SPAN}-01`);
    assert.deepEqual(p, { traceId: TRACE, spanId: SPAN, sampled: true });
    assert.equal(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.sampled, false);
    assert.equal(
      formatTraceparent({ traceId: TRACE, spanId: SPAN, sampled: true }),
      `00-${TRACE}-${SPAN}-01`,
    );
  });

  it('reads a later version by its first four fields', () => {
    assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-03-extra`)?.traceId, TRACE);
  });

  const invalid: [string, string][] = [
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['uppercase hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['version 00 with a fifth field', `00-${TRACE}-${SPAN}-01-x`],
    ['not a traceparent', 'hello'],
    ['too long', `00-${TRACE}-${SPAN}-01${'-x'.repeat(300)}`],
  ];
  for (const [what, value] of invalid)
    it(`refuses ${what}: the receiver starts a trace of its own`, () => {
      assert.equal(parseTraceparent(value), undefined);
    });

  it('a message’s trace id comes from its traceparent attribute, else the one Google’s client writes, else null', () => {
    assert.equal(TRACE_ATTRIBUTES.traceparent, 'traceparent');
    assert.equal(traceIdOf({ traceparent: `00-${TRACE}-${SPAN}-00` }), TRACE);
    assert.equal(traceIdOf({ [GOOGLE_CLIENT_TRACEPARENT]: `00-${TRACE}-${SPAN}-01` }), TRACE);
    const other = 'a'.repeat(32);
    assert.equal(
      traceIdOf({
        traceparent: `00-${other}-${SPAN}-00`,
        [GOOGLE_CLIENT_TRACEPARENT]: `00-${TRACE}-${SPAN}-01`,
      }),
      other,
    );
    assert.equal(traceIdOf({ traceparent: 'garbage' }), null);
    assert.equal(traceIdOf(undefined), null);
  });
});
