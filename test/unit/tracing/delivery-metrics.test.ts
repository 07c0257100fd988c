/**
 * The delivery metrics' recording (adapters/delivery-metrics.ts): a count per ledger row by
 * destination, platform and status; the end-to-end latency of a delivered row that is not a replay,
 * as the `latency` alert reads it (recorded_at − received_at); the call's duration. Attributes are
 * kinds only: a destination the settings do not configure is `(unknown)`, never its name.
 */
import assert from 'node:assert/strict';
import {
  DELIVERY_METRICS,
  DeliveryAttributes,
  METRIC_ATTRIBUTES,
  recordDelivery,
  UNKNOWN_DESTINATION,
} from '../../../adapters/delivery-metrics.ts';
import { telemetryHeaders } from '../../../adapters/google-credentials.ts';
import {
  deliveryInstruments,
  exitAfterFlush,
  type Metrics,
  setupMetrics,
  setupProcessMetrics,
} from '../../../adapters/metrics.ts';
import type { ForwardResult } from '../../../core/delivery/forward.ts';
import { attemptEntry, type LedgerStatus } from '../../../core/delivery/ledger.ts';
import type { Destination, Settings } from '../../../schemas/settings.ts';
import { metricsInMemory, type TestMetrics } from '../../support/metrics.ts';

const DESTINATIONS = [
  { id: 'meta-main', type: 'meta' },
  { id: 'hook', type: 'webhook' },
] as unknown as Destination[];

const RECEIVED = '2026-11-26T08:00:00.000Z';

function result(
  destination: string,
  status: Exclude<LedgerStatus, 'skipped'>,
  options: { replay?: boolean; afterMs?: number; callMs?: number; eventId?: string } = {},
): ForwardResult {
  const entry = attemptEntry({
    event_id: options.eventId ?? 'evt-secret-1',
    event_name: 'purchase',
    destination,
    status,
    attempt: 1,
    replay: options.replay ?? false,
    messageId: 'm-1',
    now: new Date(Date.parse(RECEIVED) + (options.afterMs ?? 1_500)),
  });
  return {
    ack: status !== 'failed',
    entries: [entry],
    summary: '',
    receivedAt: RECEIVED,
    ...(options.callMs !== undefined ? { callMs: options.callMs } : {}),
  };
}

describe('delivery metrics: the attribute sets', () => {
  it('names a configured destination, its platform and the status; anything else is (unknown)', () => {
    const sets = new DeliveryAttributes(DESTINATIONS);
    assert.deepEqual(sets.of('meta-main', 'delivered'), {
      [METRIC_ATTRIBUTES.destination]: 'meta-main',
      [METRIC_ATTRIBUTES.platform]: 'meta',
      [METRIC_ATTRIBUTES.status]: 'delivered',
    });
    assert.deepEqual(sets.of('hook', ''), {
      [METRIC_ATTRIBUTES.destination]: 'hook',
      [METRIC_ATTRIBUTES.platform]: 'webhook',
    });
    assert.deepEqual(sets.of('someone@example.com', 'rejected'), {
      [METRIC_ATTRIBUTES.destination]: UNKNOWN_DESTINATION,
      [METRIC_ATTRIBUTES.platform]: UNKNOWN_DESTINATION,
      [METRIC_ATTRIBUTES.status]: 'rejected',
    });
    // Made once: a delivery allocates no attribute object.
    assert.equal(sets.of('hook', 'failed'), sets.of('hook', 'failed'));
    // Every unconfigured name shares one set per status: pushes naming many add no series, no memory.
    assert.equal(sets.of('a@example.com', 'rejected'), sets.of('b@example.com', 'rejected'));
  });
});

describe('delivery metrics: recording an attempt', () => {
  let m: TestMetrics;
  const sets = new DeliveryAttributes(DESTINATIONS);
  beforeEach(() => {
    m = metricsInMemory();
  });
  afterEach(() => m.shutdown());

  const record = (r: ForwardResult) => recordDelivery(deliveryInstruments(), sets, r);
  const find = <T extends { attributes: Readonly<Record<string, unknown>> }>(
    points: T[],
    attrs: Record<string, string>,
  ) => points.find((p) => Object.entries(attrs).every(([k, v]) => p.attributes[k] === v));

  it('counts each row by destination, platform and status', async () => {
    record(result('meta-main', 'delivered'));
    record(result('meta-main', 'delivered'));
    record(result('meta-main', 'failed'));
    record(result('hook', 'rejected'));
    const points = await m.points(DELIVERY_METRICS.outcomes);
    const count = (destination: string, status: string) =>
      find(points, { [METRIC_ATTRIBUTES.destination]: destination, [METRIC_ATTRIBUTES.status]: status })
        ?.value;
    assert.equal(count('meta-main', 'delivered'), 2);
    assert.equal(count('meta-main', 'failed'), 1);
    assert.equal(count('hook', 'rejected'), 1);
    assert.equal(
      find(points, { [METRIC_ATTRIBUTES.destination]: 'hook' })?.attributes['eventbus.platform'],
      'webhook',
    );
  });

  it("records a delivered row's end-to-end latency (recorded_at − received_at), not a replay's nor a failure's", async () => {
    record(result('meta-main', 'delivered', { afterMs: 1_500 }));
    record(result('meta-main', 'delivered', { afterMs: 2_500 }));
    record(result('meta-main', 'delivered', { afterMs: 86_400_000, replay: true }));
    record(result('meta-main', 'failed', { afterMs: 9_000 }));
    const points = await m.points(DELIVERY_METRICS.latency);
    assert.equal(points.length, 1);
    const h = points[0]?.histogram;
    assert.equal(h?.count, 2);
    assert.equal(h?.sum, 4_000);
    assert.deepEqual(points[0]?.attributes, {
      [METRIC_ATTRIBUTES.destination]: 'meta-main',
      [METRIC_ATTRIBUTES.platform]: 'meta',
    });
  });

  it("records the platform call's duration by status, only when a call was made", async () => {
    record(result('hook', 'delivered', { callMs: 120 }));
    record(result('hook', 'failed', { callMs: 10_000 }));
    record(result('hook', 'rejected'));
    const points = await m.points(DELIVERY_METRICS.callDuration);
    const of = (status: string) => find(points, { [METRIC_ATTRIBUTES.status]: status })?.histogram;
    assert.equal(of('delivered')?.sum, 120);
    assert.equal(of('failed')?.sum, 10_000);
    assert.equal(of('rejected'), undefined);
  });

  it('exports no event id, person or unconfigured name in any attribute', async () => {
    record(result('meta-main', 'delivered', { eventId: 'evt-secret-1', callMs: 5 }));
    record(result('ana@example.com', 'rejected', { eventId: 'evt-secret-2' }));
    const all = [
      ...(await m.points(DELIVERY_METRICS.outcomes)),
      ...(await m.points(DELIVERY_METRICS.latency)),
      ...(await m.points(DELIVERY_METRICS.callDuration)),
    ];
    assert.ok(all.length >= 4);
    const text = JSON.stringify(all.map((p) => p.attributes));
    for (const leak of ['evt-secret', 'ana@example.com', 'purchase']) assert.ok(!text.includes(leak), text);
    for (const p of all)
      for (const key of Object.keys(p.attributes))
        assert.ok(Object.values(METRIC_ATTRIBUTES).includes(key as never), key);
  });
});

describe('delivery metrics: off', () => {
  const settings = (metrics?: Settings['metrics']) => ({ ...(metrics ? { metrics } : {}) }) as Settings;

  it('records nothing and never throws without a setup', () => {
    assert.equal(deliveryInstruments(), undefined);
    recordDelivery(undefined, new DeliveryAttributes(DESTINATIONS), result('hook', 'delivered'));
  });

  it('sets nothing up without an endpoint, or with metrics.enabled false', () => {
    assert.equal(setupMetrics({ service: 'forward', project: 'p' }), undefined);
    assert.equal(setupProcessMetrics({ settings: settings(), project: 'p' }, 'forward'), undefined);
    assert.equal(
      setupProcessMetrics(
        { settings: settings({ enabled: false }), project: 'p', traceEndpoint: 'http://127.0.0.1:9' },
        'forward',
      ),
      undefined,
    );
    assert.equal(deliveryInstruments(), undefined);
  });

  it("sends Google credentials only to the Telemetry API's host", () => {
    const scope = 'https://www.googleapis.com/auth/monitoring.write';
    assert.equal(telemetryHeaders('http://127.0.0.1:8099', scope), undefined);
    assert.equal(typeof telemetryHeaders('https://telemetry.googleapis.com', scope), 'function');
  });
});

describe('delivery metrics: a stopping process', () => {
  it('exports what was recorded since the last export, then exits', async () => {
    const m = metricsInMemory();
    try {
      recordDelivery(
        deliveryInstruments(),
        new DeliveryAttributes(DESTINATIONS),
        result('hook', 'delivered'),
      );
      const exits: number[] = [];
      const exported = new Promise<number>((resolve) =>
        exitAfterFlush(m.metrics, (code) => {
          exits.push(code);
          resolve(m.exports());
        })(0),
      );
      assert.equal(await exported, 1, 'exported before the exit');
      assert.deepEqual(exits, [0]);
    } finally {
      await m.shutdown();
    }
  });

  it('exits after its bound when the export does not end, once', async () => {
    const stuck: Metrics = {
      flush: () => new Promise(() => {}),
      flushIfDue: () => undefined,
      shutdown: async () => {},
    };
    const exits: number[] = [];
    const started = performance.now();
    await new Promise<void>((resolve) =>
      exitAfterFlush(
        stuck,
        (code) => {
          exits.push(code);
          resolve();
        },
        50,
      )(0),
    );
    assert.ok(performance.now() - started >= 45);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(exits, [0]);
  });

  it('is the exit itself without metrics', () => {
    const exit = (_code: number) => {};
    assert.equal(exitAfterFlush(undefined, exit), exit);
  });
});
