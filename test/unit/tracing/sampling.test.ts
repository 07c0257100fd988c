/**
 * Sampling decided before a span is made (adapters/tracing.ts, docs/observability.md): an
 * unsampled hop makes no SDK span, carries its context as a sampled one does, and is exported
 * whole (parentage, times, attributes) only when one of its spans ended in an error or a refusal.
 */
import assert from 'node:assert/strict';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  endSpan,
  REFUSED_ATTRIBUTE,
  remoteContext,
  runHop,
  SpanKind,
  startSpan,
  type Tracing,
  traceparentOf,
  tracer,
} from '../../../adapters/tracing.ts';
import { tracingInto } from '../../support/tracing.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const UPSTREAM = '00f067aa0ba902b7';
const unsampledParent = () => remoteContext(`00-${TRACE}-${UPSTREAM}-00`);
const sampledParent = () => remoteContext(`00-${TRACE}-${UPSTREAM}-01`);
const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6;

describe('tracing: sampling decided before the spans', () => {
  let tracing: Tracing | undefined;
  let exporter: InMemorySpanExporter;
  /** Tracing at `ratio` into a fresh exporter (a shut-down one takes nothing more). */
  const setup = (ratio: number) => {
    exporter = new InMemorySpanExporter();
    tracing = tracingInto('store', ratio, exporter);
  };
  beforeEach(() => setup(0));
  afterEach(async () => {
    await tracing?.shutdown();
    tracing = undefined;
  });
  const exported = async (): Promise<ReadableSpan[]> => {
    await tracing?.flush();
    return exporter.getFinishedSpans();
  };

  /** A hop as store's: a consumer span under a remote parent, two children, the last with `outcome`. */
  const hop = async (
    parent: ReturnType<typeof remoteContext>,
    outcome?: { error?: string; refused?: string },
  ) => {
    const root = startSpan('store', parent, { 'eventbus.event_name': 'purchase' }, SpanKind.CONSUMER);
    await runHop(trace.setSpan(parent, root), root, async () => {
      tracer().startSpan('store.decode').end();
      await new Promise((r) => setTimeout(r, 5));
      const write = tracer().startSpan('store.write', { attributes: { 'eventbus.table': 'events' } });
      write.setAttribute('eventbus.rows', 1);
      endSpan(write, outcome);
    });
    return root;
  };

  it('an unsampled hop is no SDK span, carries its context and, ending well, exports nothing', async () => {
    const root = await hop(unsampledParent());
    // Not the SDK's span class: no sampler, no attribute checks, no span processor was run for it.
    assert.notEqual(root.constructor.name, 'SpanImpl');
    assert.equal(root.spanContext().traceId, TRACE);
    assert.match(traceparentOf(root) ?? '', new RegExp(`^00-${TRACE}-[0-9a-f]{16}-00$`));
    assert.notEqual(root.spanContext().spanId, UPSTREAM);
    assert.deepEqual(await exported(), []);
  });

  it('a refusal exports the whole hop: parentage, kinds, times and attributes as made', async () => {
    const started = Date.now();
    const root = await hop(unsampledParent(), { refused: 'invalid_event' });
    const spans = await exported();
    assert.deepEqual(spans.map((s) => s.name).sort(), ['store', 'store.decode', 'store.write']);
    const by = new Map(spans.map((s) => [s.name, s]));
    const store = by.get('store') as ReadableSpan;
    assert.equal(store.spanContext().spanId, root.spanContext().spanId);
    assert.equal(store.spanContext().traceId, TRACE);
    assert.equal(store.parentSpanContext?.spanId, UPSTREAM);
    assert.equal(store.kind, SpanKind.CONSUMER);
    assert.equal(store.attributes['eventbus.event_name'], 'purchase');
    for (const child of ['store.decode', 'store.write'])
      assert.equal(by.get(child)?.parentSpanContext?.spanId, store.spanContext().spanId, child);
    const write = by.get('store.write') as ReadableSpan;
    assert.deepEqual(write.attributes, {
      'eventbus.table': 'events',
      'eventbus.rows': 1,
      [REFUSED_ATTRIBUTE]: 'invalid_event',
    });
    // Times on the epoch clock, in order, and the hop lasted the 5 ms it waited.
    assert.ok(Math.abs(ms(store.startTime) - started) < 1000, `${ms(store.startTime)} vs ${started}`);
    assert.ok(ms(write.startTime) >= ms(store.startTime));
    assert.ok(ms(store.endTime) >= ms(write.endTime));
    assert.ok(ms(store.duration) >= 4, String(ms(store.duration)));
    assert.equal(resourceService(store), 'store');
  });

  it('an error status exports the hop too, and a rejected hop marks its root failed', async () => {
    const parent = unsampledParent();
    const root = startSpan('forward', parent, {}, SpanKind.CONSUMER);
    await assert.rejects(
      runHop(trace.setSpan(parent, root), root, async () => {
        tracer().startSpan('forward.claim').end();
        throw new TypeError('boom');
      }) as Promise<void>,
    );
    const spans = await exported();
    assert.deepEqual(spans.map((s) => s.name).sort(), ['forward', 'forward.claim']);
    assert.equal(spans.find((s) => s.name === 'forward')?.status.message, 'TypeError');
  });

  it('two hops of one trace at once: only the failed one is exported', async () => {
    const [ok, failed] = await Promise.all([
      hop(unsampledParent()),
      hop(unsampledParent(), { error: '500' }),
    ]);
    const spans = await exported();
    assert.equal(spans.length, 3);
    const ids = new Set(spans.map((s) => s.spanContext().spanId));
    assert.ok(ids.has(failed.spanContext().spanId));
    assert.ok(!ids.has(ok.spanContext().spanId));
  });

  it('a span ending after its failed hop’s root is exported with it', async () => {
    const parent = unsampledParent();
    const root = startSpan('gateway.receive', parent, {}, SpanKind.SERVER);
    const late = context.with(trace.setSpan(parent, root), () => tracer().startSpan('gateway.publish'));
    endSpan(root, { refused: 'INVALID_EVENT' });
    late.end();
    assert.deepEqual((await exported()).map((s) => s.name).sort(), ['gateway.publish', 'gateway.receive']);
  });

  it('a sampled parent’s hop is the SDK’s and exported as made, its errors or not', async () => {
    const root = await hop(sampledParent());
    assert.equal(root.constructor.name, 'SpanImpl');
    assert.match(traceparentOf(root) ?? '', /-01$/);
    assert.deepEqual((await exported()).map((s) => s.name).sort(), ['store', 'store.decode', 'store.write']);
  });

  it('a root is drawn at the ratio: none at 0, every one at 1', async () => {
    for (let i = 0; i < 20; i++) await hop(remoteContext(undefined));
    assert.deepEqual(await exported(), []);
    await tracing?.shutdown();
    setup(1);
    for (let i = 0; i < 5; i++) await hop(remoteContext(undefined));
    const roots = (await exported()).filter((s) => s.name === 'store');
    assert.equal(new Set(roots.map((s) => s.spanContext().traceId)).size, 5);
  });
});

function resourceService(span: ReadableSpan): unknown {
  return span.resource.attributes['service.name'];
}
