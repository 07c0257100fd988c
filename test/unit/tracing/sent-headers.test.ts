/**
 * The headers a webhook call sent, as its `forward.call` span records them
 * (core/tracing/sent-headers.ts, adapters/delivery-tracing.ts): credentials redacted before they
 * are recorded, other platforms' calls recording none; and the debugger's `event-trace` showing
 * them on the call's row (studio/debugger-api.ts).
 */
import assert from 'node:assert/strict';
import { context } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { SEND_TRACEPARENT, tracedSend } from '../../../adapters/delivery-tracing.ts';
import type { Tracing } from '../../../adapters/tracing.ts';
import type { OutboundRequest } from '../../../core/platforms/driver.ts';
import { toV1Trace } from '../../../core/tracing/cloud-trace-v1.ts';
import {
  REDACTED,
  SENT_HEADERS_ATTRIBUTE,
  sentHeaders,
  WITHHELD,
} from '../../../core/tracing/sent-headers.ts';
import { debuggerAction, type EventTrace } from '../../../studio/debugger-api.ts';
import { tracingInto } from '../../support/tracing.ts';

const SIGNATURE = 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=';
const REQUEST: OutboundRequest = {
  method: 'POST',
  url: 'https://hooks.example.test/in',
  redactedUrl: 'https://hooks.example.test/in',
  headers: {
    'content-type': 'application/json',
    'webhook-id': 'msg_1',
    'webhook-timestamp': '1764230400',
    'webhook-signature': SIGNATURE,
    'X-Eventbus-Signature': 'v2=abc123',
    authorization: 'Bearer secret-token',
    'x-api-key': 'k-123',
    'ce-type': 'com.eventbus.view_content',
  },
  body: '{}',
};

describe('the headers a webhook call sent, on its span and in the debugger', () => {
  let tracing: Tracing | undefined;
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    tracing = tracingInto('forward', 1, exporter);
  });
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
  });

  it('redacts every credential, keeps the rest as sent', () => {
    const shown = JSON.parse(sentHeaders(REQUEST.headers)) as Record<string, string>;
    assert.deepEqual(shown, {
      authorization: REDACTED,
      'ce-type': 'com.eventbus.view_content',
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'webhook-signature': REDACTED,
      'webhook-timestamp': '1764230400',
      'x-api-key': REDACTED,
      'x-eventbus-signature': REDACTED,
    });
    assert.equal(JSON.parse(sentHeaders({ 'user-agent': 'a'.repeat(500) }))['user-agent'].length, 201);
  });

  it('withholds what the producer sent: the event id, CloudEvents subject, headers the settings add', () => {
    const shown = JSON.parse(
      sentHeaders({
        'X-Eventbus-Event-Id': 'order-1234',
        'x-eventbus-delivery-id': 'd_5e8f',
        'ce-subject': 'order-1234',
        'ce-id': 'd_5e8f',
        'x-shop': 'jane@example.com',
      }),
    ) as Record<string, string>;
    assert.deepEqual(shown, {
      'ce-id': 'd_5e8f',
      'ce-subject': WITHHELD,
      'x-eventbus-delivery-id': 'd_5e8f',
      'x-eventbus-event-id': WITHHELD,
      'x-shop': WITHHELD,
    });
    assert.ok(!JSON.stringify(shown).includes('order-1234'));
  });

  const send = tracedSend(async () => ({ kind: 'response', status: 200, headers: {}, body: '' }));
  const callSpan = async () => {
    await tracing?.flush();
    const span = exporter.getFinishedSpans().find((s) => s.name === 'forward.call');
    assert.ok(span);
    return span;
  };

  it('a webhook call records them (with its traceparent); no secret reaches the span', async () => {
    await context.with(context.active().setValue(SEND_TRACEPARENT, true), () => send(REQUEST, 1000));
    const span = await callSpan();
    const recorded = String(span.attributes[SENT_HEADERS_ATTRIBUTE]);
    const headers = JSON.parse(recorded) as Record<string, string>;
    assert.equal(headers['webhook-id'], 'msg_1');
    assert.equal(headers['webhook-signature'], REDACTED);
    assert.match(headers['traceparent'] ?? '', /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    for (const secret of [SIGNATURE, 'abc123', 'secret-token', 'k-123'])
      assert.ok(!JSON.stringify(span.attributes).includes(secret), secret);
  });

  it('another platform’s call records no headers', async () => {
    await send(REQUEST, 1000);
    assert.equal((await callSpan()).attributes[SENT_HEADERS_ATTRIBUTE], undefined);
  });

  it('the debugger’s event-trace shows them on the call’s row', async () => {
    const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
    const recorded = sentHeaders(REQUEST.headers);
    const trace = toV1Trace('p1', TRACE, [
      {
        spanId: '00000000000000b2',
        parentSpanId: '',
        name: 'forward.call',
        service: 'forward',
        kind: 3,
        startTimeUnixNano: '1763639940000000000',
        endTimeUnixNano: '1763639940020000000',
        status: 0,
        attributes: { 'http.response.status_code': 200, [SENT_HEADERS_ATTRIBUTE]: recorded },
      },
    ]);
    const step = await debuggerAction(
      {
        warehouse: {
          table: (name) => `\`p1.events.${name}\``,
          query: async () => [{ trace_id: TRACE, received_at: '2026-11-20T11:59:00.000Z' }],
        },
        now: () => Date.parse('2026-11-20T12:00:00Z'),
        traces: { read: async () => ({ ok: true, trace }), project: 'p1' },
      },
      'event-trace',
      { event_id: 'e-1' },
      false,
    );
    assert.ok(step.ok);
    const row = (step.value as EventTrace).waterfall?.rows[0];
    assert.equal(row?.attributes[SENT_HEADERS_ATTRIBUTE], recorded);
    assert.ok(!JSON.stringify(step.value).includes(SIGNATURE));
  });
});
