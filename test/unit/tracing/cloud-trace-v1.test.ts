/**
 * core/tracing/cloud-trace-v1.ts: OTLP's spans in Cloud Trace API v1's shape (span ids as decimal
 * uint64, times in RFC 3339, attributes as labels, parentage kept) and the studio's waterfall
 * laid out from that shape (tree order, depth, offsets and widths in milliseconds, errors).
 */
import assert from 'node:assert/strict';
import {
  decimalSpanId,
  hexSpanId,
  msOfRfc3339,
  type OtlpSpanLike,
  parseV1Trace,
  rfc3339OfNanos,
  toV1Trace,
  waterfall,
} from '../../../core/tracing/cloud-trace-v1.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const T0 = 1_700_000_000_000_000_000n;

function span(
  spanId: string,
  parentSpanId: string,
  name: string,
  startMs: number,
  endMs: number,
  extra: Partial<OtlpSpanLike> = {},
): OtlpSpanLike {
  return {
    spanId,
    parentSpanId,
    name,
    service: name.split('.')[0] as string,
    kind: 1,
    startTimeUnixNano: String(T0 + BigInt(Math.round(startMs * 1e6))),
    endTimeUnixNano: String(T0 + BigInt(Math.round(endMs * 1e6))),
    status: 0,
    attributes: {},
    ...extra,
  };
}

describe('Cloud Trace v1: span ids and times', () => {
  it('writes a 16-hex span id as the decimal uint64 v1 shows, and back', () => {
    assert.equal(decimalSpanId('00f067aa0ba902b7'), '67667974448284343');
    assert.equal(decimalSpanId('B7AD6B7169203331'), '13235353014750950193');
    assert.equal(decimalSpanId('ffffffffffffffff'), '18446744073709551615');
    assert.equal(hexSpanId('67667974448284343'), '00f067aa0ba902b7');
    assert.equal(hexSpanId('18446744073709551615'), 'ffffffffffffffff');
  });

  it('refuses what is not a span id: zero, wrong length, not hex, past 64 bits', () => {
    for (const bad of ['0000000000000000', '00f067aa0ba902', '00f067aa0ba902b7aa', 'zzf067aa0ba902b7', ''])
      assert.equal(decimalSpanId(bad), undefined, bad);
    for (const bad of ['0', '18446744073709551616', '-1', '12a', '007'])
      assert.equal(hexSpanId(bad), undefined, bad);
  });

  it('writes epoch nanoseconds as RFC 3339 with nine digits, and reads it back to the microsecond', () => {
    assert.equal(rfc3339OfNanos('1700000000123456789'), '2023-11-14T22:13:20.123456789Z');
    assert.equal(rfc3339OfNanos('1700000000000000000'), '2023-11-14T22:13:20.000000000Z');
    assert.equal(msOfRfc3339('2023-11-14T22:13:20.123456789Z'), 1_700_000_000_123.4568);
    assert.equal(msOfRfc3339('2023-11-14T22:13:20Z'), 1_700_000_000_000);
    assert.equal(msOfRfc3339('2023-11-14T23:13:20.5+01:00'), 1_700_000_000_500);
    assert.ok(Number.isNaN(msOfRfc3339('yesterday')));
  });
});

describe('Cloud Trace v1: a trace from OTLP spans', () => {
  const spans = [
    span('00000000000000b2', '00000000000000a1', 'store', 20, 30, { kind: 5 }),
    span('00000000000000a1', '00f067aa0ba902b7', 'gateway.receive', 0, 12, {
      kind: 2,
      attributes: { 'http.response.status_code': 200, 'eventbus.route': 'topic' },
    }),
    span('00000000000000c3', '00000000000000b2', 'forward.call', 25, 29, { kind: 3, status: 2 }),
  ];

  it('converts ids, parentage, kinds, times and labels, oldest first', () => {
    const t = toV1Trace('p1', TRACE, spans);
    assert.equal(t.projectId, 'p1');
    assert.equal(t.traceId, TRACE);
    assert.deepEqual(
      t.spans.map((s) => [s.name, s.spanId, s.parentSpanId, s.kind]),
      [
        ['gateway.receive', '161', '67667974448284343', 'RPC_SERVER'],
        ['store', '178', '161', 'SPAN_KIND_UNSPECIFIED'],
        ['forward.call', '195', '178', 'RPC_CLIENT'],
      ],
    );
    const [gateway, , call] = t.spans;
    assert.equal(gateway?.startTime, '2023-11-14T22:13:20.000000000Z');
    assert.equal(gateway?.endTime, '2023-11-14T22:13:20.012000000Z');
    assert.deepEqual(gateway?.labels, {
      'http.response.status_code': '200',
      'eventbus.route': 'topic',
      'service.name': 'gateway',
    });
    assert.equal(call?.labels?.['otel.status_code'], 'ERROR');
  });

  it('leaves out a span whose id is not 16 hex digits, and a root has no parent', () => {
    const t = toV1Trace('p1', TRACE, [
      span('nothex', '', 'x', 0, 1),
      span('00000000000000a1', '', 'gateway.receive', 0, 1),
    ]);
    assert.equal(t.spans.length, 1);
    assert.equal('parentSpanId' in (t.spans[0] ?? {}), false);
  });

  it('reads its own JSON back (parseV1Trace), and refuses what is not a trace', () => {
    const t = toV1Trace('p1', TRACE, spans);
    assert.deepEqual(parseV1Trace(JSON.parse(JSON.stringify(t))), t);
    assert.equal(parseV1Trace({ spans: [] }), undefined);
    assert.equal(parseV1Trace({ traceId: TRACE, spans: [{ spanId: '1' }] }), undefined);
    assert.equal(parseV1Trace('trace'), undefined);
  });
});

describe('Cloud Trace v1: the waterfall', () => {
  it('orders spans as a tree, each under its parent, with offsets and widths in ms and errors marked', () => {
    const t = toV1Trace('p1', TRACE, [
      span('00000000000000c3', '00000000000000b2', 'forward.call', 25, 29, {
        status: 2,
        attributes: { 'http.response.status_code': 503, 'url.full': 'https://x.example/?email=a@b.c' },
      }),
      span('00000000000000b2', '00000000000000a1', 'store', 20, 30),
      span('00000000000000d4', '00000000000000a1', 'gateway.auth', 1, 2),
      span('00000000000000a1', '00f067aa0ba902b7', 'gateway.receive', 0, 12),
    ]);
    const w = waterfall(t);
    assert.equal(w.totalMs, 30);
    assert.deepEqual(
      w.rows.map((r) => [r.name, r.service, r.depth, r.offsetMs, r.durationMs, r.error]),
      [
        ['gateway.receive', 'gateway', 0, 0, 12, false],
        ['gateway.auth', 'gateway', 1, 1, 1, false],
        ['store', 'store', 1, 20, 10, false],
        ['forward.call', 'forward', 2, 25, 4, true],
      ],
    );
    // Only the key attributes: never a URL or another value.
    assert.deepEqual(w.rows[3]?.attributes, { 'http.response.status_code': '503' });
  });

  it('marks a refusal as an error, and places spans whose parents name each other', () => {
    const t = toV1Trace('p1', TRACE, [
      span('00000000000000a1', '', 'gateway.receive', 0, 5, {
        attributes: { 'eventbus.refused': 'INVALID_EVENT' },
      }),
      span('00000000000000e1', '00000000000000e2', 'x', 1, 2),
      span('00000000000000e2', '00000000000000e1', 'y', 2, 3),
    ]);
    const w = waterfall(t);
    assert.equal(w.rows.length, 3);
    assert.equal(w.rows[0]?.error, true);
  });

  it('reads v1’s canonical labels where the OpenTelemetry ones are absent (Google’s “Trace labels”)', () => {
    // As traces.get answers spans some agent labelled with the documented keys only.
    const at = (ms: number) => `2023-11-14T22:13:20.${String(ms).padStart(3, '0')}000000Z`;
    const v1 = (
      spanId: string,
      name: string,
      ms: [number, number],
      labels: Record<string, string>,
      parent?: string,
    ) =>
      ({
        spanId,
        kind: 'SPAN_KIND_UNSPECIFIED',
        name,
        startTime: at(ms[0]),
        endTime: at(ms[1]),
        ...(parent ? { parentSpanId: parent } : {}),
        labels,
      }) as const;
    const traceOf = (...spans: ReturnType<typeof v1>[]) =>
      waterfall({ projectId: 'p1', traceId: TRACE, spans });
    const w = traceOf(
      v1('161', 'gateway.receive', [0, 12], {
        '/http/status_code': '200',
        '/http/host': 'collect.example.com',
      }),
      v1(
        '178',
        'forward.call',
        [2, 9],
        { '/http/status_code': '503', '/http/host': 'graph.facebook.com' },
        '161',
      ),
      v1('179', 'store', [3, 4], { '/error/name': 'DeadlineExceeded' }, '161'),
    );
    assert.deepEqual(
      w.rows.map((r) => [r.name, r.depth, r.error, r.attributes]),
      [
        [
          'gateway.receive',
          0,
          false,
          { 'http.response.status_code': '200', 'server.address': 'collect.example.com' },
        ],
        [
          'forward.call',
          1,
          true,
          { 'http.response.status_code': '503', 'server.address': 'graph.facebook.com' },
        ],
        ['store', 1, true, {}],
      ],
    );
    // The OpenTelemetry label wins where both are there.
    const both = traceOf(
      v1('161', 'forward.call', [0, 1], { 'http.response.status_code': '200', '/http/status_code': '502' }),
    );
    assert.deepEqual(both.rows[0]?.attributes, { 'http.response.status_code': '200' });
    assert.equal(both.rows[0]?.error, false);
  });

  it('an empty trace is no rows', () => {
    assert.deepEqual(waterfall({ projectId: 'p', traceId: TRACE, spans: [] }), {
      traceId: TRACE,
      totalMs: 0,
      rows: [],
    });
  });
});
