/**
 * The gateway's trace of a request (adapters/tracing.ts, gateway/tracing.ts): the producer's
 * context continued and carried on every message as its `traceparent` attribute; what the sampling exports (a ratio, a sampled producer, every refusal); and a
 * collector that is down or never answers costs no event and no answer.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { setupTracing, type Tracing } from '../../adapters/tracing.ts';
import { freePort } from '../../local/ports.ts';
import { tracingInto } from '../support/tracing.ts';
import { FakePublisher, post, startTestGateway, type TestGateway } from './support.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';
const event = (i: number) => ({
  event_name: 'view_content',
  content_name: `Shoe ${i}`,
  content_type: 'product',
});

describe('gateway: a trace per request', () => {
  let tracing: Tracing | undefined;
  let g: TestGateway | undefined;
  afterEach(async () => {
    await g?.close();
    await tracing?.shutdown();
    g = undefined;
    tracing = undefined;
  });

  const start = async (ratio: number, exporter: InMemorySpanExporter) => {
    tracing = tracingInto('gateway', ratio, exporter);
    const pub = new FakePublisher();
    g = await startTestGateway({ publisher: pub });
    return { pub, g };
  };

  it('continues a sampled producer’s trace it asks for, and carries it on every message', async () => {
    const exporter = new InMemorySpanExporter();
    const { pub, g } = await start(0, exporter);
    const a = await post(`${g.url}/v1/topics/events`, [event(1), event(2)], {
      authorization: `Bearer ${g.token}`,
      traceparent: `00-${TRACE}-${PRODUCER_SPAN}-01`,
      'x-eventbus-trace': '1',
    });
    assert.equal(a.status, 200);
    await tracing?.flush();
    const spans = exporter.getFinishedSpans();
    const receive = spans.find((s) => s.name === 'gateway.receive');
    assert.ok(receive, spans.map((s) => s.name).join());
    assert.equal(receive.spanContext().traceId, TRACE);
    assert.equal(receive.parentSpanContext?.spanId, PRODUCER_SPAN);
    assert.deepEqual(
      spans
        .filter((s) => s.parentSpanContext?.spanId === receive.spanContext().spanId)
        .map((s) => s.name)
        .sort(),
      ['gateway.auth', 'gateway.publish', 'gateway.validate'],
    );
    for (const m of pub.calls[0]?.messages ?? [])
      assert.equal(m.attributes['traceparent'], `00-${TRACE}-${receive.spanContext().spanId}-01`);
  });

  it('lets the ratio decide over a sampled flag nobody asked for (Cloud Run sets its own)', async () => {
    const exporter = new InMemorySpanExporter();
    const { pub, g } = await start(0, exporter);
    const a = await post(`${g.url}/v1/topics/events`, event(1), {
      authorization: `Bearer ${g.token}`,
      traceparent: `00-${TRACE}-${PRODUCER_SPAN}-01`,
    });
    assert.equal(a.status, 200);
    await tracing?.flush();
    assert.deepEqual(exporter.getFinishedSpans(), []);
    // The trace id is kept, so logs and the request's own trace still join; unsampled downstream.
    const carried = pub.calls[0]?.messages[0]?.attributes['traceparent'] ?? '';
    assert.match(carried, new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
  });

  it('at ratio 0, exports nothing of an accepted request but every span of a refused one', async () => {
    const exporter = new InMemorySpanExporter();
    const { pub, g } = await start(0, exporter);
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, event(1), { authorization: `Bearer ${g.token}` })).status,
      200,
    );
    // Not sampled, yet carried: the store continues the same trace id.
    assert.match(
      pub.calls[0]?.messages[0]?.attributes['traceparent'] ?? '',
      /^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/,
    );
    assert.equal(
      (await post(`${g.url}/v1/topics/events`, event(2), { authorization: 'Bearer nope' })).status,
      401,
    );
    await tracing?.flush();
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(spans.map((s) => s.name).sort(), ['gateway.auth', 'gateway.receive']);
    assert.equal(new Set(spans.map((s) => s.spanContext().traceId)).size, 1);
    assert.equal(
      spans.find((s) => s.name === 'gateway.receive')?.attributes['eventbus.refused'],
      'INVALID_CREDENTIALS',
    );
  });

  it('at ratio 0, a failed publish exports the request with the publish step’s error, under its parent', async () => {
    const exporter = new InMemorySpanExporter();
    const { pub, g } = await start(0, exporter);
    pub.mode = 'unavailable';
    const a = await post(`${g.url}/v1/topics/events`, event(1), {
      authorization: `Bearer ${g.token}`,
      traceparent: `00-${TRACE}-${PRODUCER_SPAN}-00`,
      tracestate: 'producer=1',
    });
    assert.equal(a.status, 503);
    await tracing?.flush();
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(spans.map((s) => s.name).sort(), [
      'gateway.auth',
      'gateway.publish',
      'gateway.receive',
      'gateway.validate',
    ]);
    const receive = spans.find((s) => s.name === 'gateway.receive');
    assert.equal(receive?.parentSpanContext?.spanId, PRODUCER_SPAN);
    assert.equal(receive?.attributes['http.response.status_code'], 503);
    assert.equal(receive?.status.code, SpanStatusCode.ERROR);
    assert.equal(receive?.spanContext().traceState?.get('producer'), '1');
    const publish = spans.find((s) => s.name === 'gateway.publish');
    assert.equal(publish?.parentSpanContext?.spanId, receive?.spanContext().spanId);
    assert.equal(publish?.kind, SpanKind.PRODUCER);
    assert.deepEqual(publish?.status, { code: SpanStatusCode.ERROR, message: 'PublishUnavailableError' });
    for (const s of spans) {
      assert.equal(s.spanContext().traceId, TRACE);
      assert.ok(s.startTime[0] * 1e3 + s.startTime[1] / 1e6 <= s.endTime[0] * 1e3 + s.endTime[1] / 1e6);
    }
  });

  it('carries a producer’s tracestate on every message, with the unsampled flag it came with', async () => {
    const exporter = new InMemorySpanExporter();
    const { pub, g } = await start(0, exporter);
    const a = await post(`${g.url}/v1/topics/events`, [event(1), event(2)], {
      authorization: `Bearer ${g.token}`,
      traceparent: `00-${TRACE}-${PRODUCER_SPAN}-00`,
      tracestate: 'producer=1,other=x',
    });
    assert.equal(a.status, 200);
    const messages = pub.calls[0]?.messages ?? [];
    assert.equal(messages.length, 2);
    for (const m of messages) {
      assert.match(m.attributes['traceparent'] ?? '', new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
      assert.doesNotMatch(m.attributes['traceparent'] ?? '', new RegExp(PRODUCER_SPAN));
      assert.equal(m.attributes['tracestate'], 'producer=1,other=x');
    }
    await tracing?.flush();
    assert.deepEqual(exporter.getFinishedSpans(), []);
  });

  it('a producer’s own traceparent attribute never reaches Pub/Sub: the gateway’s context does', async () => {
    const exporter = new InMemorySpanExporter();
    const { pub, g } = await start(0, exporter);
    const forged = `00-${TRACE}-${PRODUCER_SPAN}-01`;
    const data = Buffer.from(JSON.stringify(event(1))).toString('base64');
    const a = await post(
      `${g.url}/v1/projects/test-project/topics/events:publish`,
      { messages: [{ data, attributes: { traceparent: forged, tracestate: 'x=1', keep: 'me' } }] },
      { authorization: `Bearer ${g.token}` },
    );
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const attrs = pub.calls[0]?.messages[0]?.attributes ?? {};
    assert.equal(attrs['keep'], 'me');
    assert.notEqual(attrs['traceparent'], forged);
    assert.doesNotMatch(attrs['traceparent'] ?? '', new RegExp(TRACE));
    assert.equal(attrs['tracestate'], undefined);
  });

  it('at ratio 1, exports every request’s trace', async () => {
    const exporter = new InMemorySpanExporter();
    const { g } = await start(1, exporter);
    for (let i = 0; i < 3; i++)
      assert.equal(
        (await post(`${g.url}/v1/topics/events`, event(i), { authorization: `Bearer ${g.token}` })).status,
        200,
      );
    await tracing?.flush();
    const roots = exporter.getFinishedSpans().filter((s) => s.name === 'gateway.receive');
    assert.equal(new Set(roots.map((s) => s.spanContext().traceId)).size, 3);
  });

  describe('a collector that is down or slow costs no event', () => {
    let slow: Server | undefined;
    after(() => {
      slow?.closeAllConnections();
      return new Promise<void>((r) => (slow ? slow.close(() => r()) : r()));
    });

    const publishThrough = async (endpoint: string) => {
      tracing = setupTracing({
        service: 'gateway',
        project: 'p',
        ratio: 1,
        endpoint,
        queue: { scheduledDelayMillis: 5, maxQueueSize: 64, exportTimeoutMillis: 500 },
      });
      const pub = new FakePublisher();
      g = await startTestGateway({ publisher: pub });
      const gateway = g;
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          post(`${gateway.url}/v1/topics/events`, [event(i), event(i + 100)], {
            authorization: `Bearer ${gateway.token}`,
          }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 200),
      );
      assert.equal(pub.published, 80);
    };

    it('down: every event is published and answered', async () => {
      await publishThrough(`http://127.0.0.1:${await freePort()}`);
    });

    it('never answering: every event is published and answered', async () => {
      let calls = 0;
      slow = createServer(() => {
        calls++; // holds every export open: the exporter gives up after its timeout
      });
      await new Promise<void>((r) => slow?.listen(0, '127.0.0.1', () => r()));
      await publishThrough(`http://127.0.0.1:${(slow.address() as AddressInfo).port}`);
      // Bounded: exports were attempted meanwhile (the queue is full, not the requests).
      await tracing?.flush();
      assert.ok(calls >= 1);
    });
  });
});
