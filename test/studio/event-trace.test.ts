/**
 * The debugger's `event-trace` (studio/debugger-api.ts): the stored event's trace id read from
 * `events`, its trace read through the reader and laid out as a waterfall; or, when there is
 * none, why in words: tracing off (no trace id), not sampled (Cloud Trace has no such trace and
 * the event is recent), aged out (older than Cloud Trace keeps traces); a denied read names the
 * role; an unknown event or a bad id is refused.
 */
import assert from 'node:assert/strict';
import type { TraceRead, TraceReader } from '../../adapters/trace-reader.ts';
import { toV1Trace } from '../../core/tracing/cloud-trace-v1.ts';
import { type DebuggerApiOptions, debuggerAction, type EventTrace } from '../../studio/debugger-api.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const NOW = Date.parse('2026-11-20T12:00:00Z');

function options(rows: Record<string, unknown>[], read: TraceRead, asked: string[] = []): DebuggerApiOptions {
  const reader: TraceReader = async (project, traceId) => {
    asked.push(`${project} ${traceId}`);
    return read;
  };
  return {
    warehouse: {
      table: (name) => `\`p1.events.${name}\``,
      query: async (sql, params) => {
        asked.push(`${sql.includes('`p1.events.events`') ? 'events' : sql} ${String(params['event_id'])}`);
        return rows;
      },
    },
    now: () => NOW,
    traces: { read: reader, project: 'p1' },
  };
}

const stored = (trace_id: string | null, received_at = '2026-11-20T11:59:00.000Z') => [
  { trace_id, received_at },
];
const NOT_FOUND: TraceRead = { ok: false, http: 404, status: 'NOT_FOUND', message: 'Trace not found' };

async function call(o: DebuggerApiOptions, body: unknown) {
  return debuggerAction(o, 'event-trace', body, false);
}

describe('studio: an event’s trace for the debugger (event-trace)', () => {
  it('reads the event’s trace id, then its trace in the project, as a waterfall', async () => {
    const asked: string[] = [];
    const trace = toV1Trace('p1', TRACE, [
      {
        spanId: '00000000000000a1',
        parentSpanId: '',
        name: 'gateway.receive',
        service: 'gateway',
        kind: 2,
        startTimeUnixNano: '1763639940000000000',
        endTimeUnixNano: '1763639940004000000',
        status: 0,
        attributes: {},
      },
    ]);
    const step = await call(options(stored(TRACE), { ok: true, trace }, asked), { event_id: 'e-1' });
    assert.ok(step.ok);
    const answer = step.value as EventTrace;
    assert.deepEqual(asked, ['events e-1', `p1 ${TRACE}`]);
    assert.equal(answer.trace_id, TRACE);
    assert.equal(answer.no_trace, null);
    assert.deepEqual(
      answer.waterfall?.rows.map((r) => [r.name, r.service, r.durationMs]),
      [['gateway.receive', 'gateway', 4]],
    );
  });

  it('no trace id: tracing was off, and Cloud Trace is not asked', async () => {
    const asked: string[] = [];
    const step = await call(options(stored(null), NOT_FOUND, asked), { event_id: 'e-1' });
    assert.ok(step.ok);
    assert.match((step.value as EventTrace).no_trace ?? '', /tracing was off/);
    assert.deepEqual(asked, ['events e-1']);
  });

  it('a recent event whose trace Cloud Trace does not have: not sampled', async () => {
    const step = await call(options(stored(TRACE), NOT_FOUND), { event_id: 'e-1' });
    assert.ok(step.ok);
    const answer = step.value as EventTrace;
    assert.equal(answer.waterfall, null);
    assert.match(answer.no_trace ?? '', /not sampled/);
  });

  it('an event older than Cloud Trace keeps traces: aged out, with its age', async () => {
    const step = await call(options(stored(TRACE, '2026-10-01T00:00:00Z'), NOT_FOUND), { event_id: 'e-1' });
    assert.ok(step.ok);
    assert.match((step.value as EventTrace).no_trace ?? '', /aged out .*30 days.* 50 days old/);
  });

  it('a denied read is a 403 naming the role; an unreachable one a 503', async () => {
    const denied = await call(
      options(stored(TRACE), { ok: false, http: 403, status: 'PERMISSION_DENIED', message: 'denied' }),
      { event_id: 'e-1' },
    );
    assert.equal(!denied.ok && denied.error.http, 403);
    assert.match(!denied.ok ? denied.error.body.error.message : '', /roles\/cloudtrace\.user/);
    const down = await call(
      options(stored(TRACE), { ok: false, http: 503, status: 'UNAVAILABLE', message: 'down' }),
      { event_id: 'e-1' },
    );
    assert.equal(!down.ok && down.error.http, 503);
  });

  it('an unknown event is 404; an id that is not one is refused naming event_id', async () => {
    const unknown = await call(options([], NOT_FOUND), { event_id: 'e-404' });
    assert.equal(!unknown.ok && unknown.error.http, 404);
    for (const bad of [{}, { event_id: '' }, { event_id: 'has space' }, { event_id: 7 }]) {
      const step = await call(options(stored(TRACE), NOT_FOUND), bad);
      assert.equal(!step.ok && step.error.http, 400, JSON.stringify(bad));
      assert.match(JSON.stringify(!step.ok && step.error.body), /event_id/);
    }
  });
});
