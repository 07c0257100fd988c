/**
 * The delivery metrics through the real OTLP/HTTP exporter to the local receiver (loopback,
 * ephemeral ports), under the grants `pulumi up` binds for environments/local.yaml:
 *
 * - forward's deliveries to two webhook destinations (the receiver itself) arrive as points per
 *   destination: the outcome counts and the end-to-end latency;
 * - the receiver checks Cloud Monitoring's permissions: forward writes on its own port
 *   (roles/monitoring.metricWriter), the gateway gets 403 with Google's ErrorInfo, no credentials
 *   or a forged token 401, and reading `/metrics.json` needs monitoring.timeSeries.list;
 * - a receiver that is stopped, or that never answers, costs no delivery: every push is answered
 *   at once, and an export gives up at its bound.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DELIVERY_METRICS, METRIC_ATTRIBUTES } from '../../adapters/delivery-metrics.ts';
import { createHttpSender } from '../../adapters/http-sender.ts';
import { type Metrics, setupMetrics } from '../../adapters/metrics.ts';
import { type Workload, workloadMember } from '../../core/access/needs.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { createForwardHandler } from '../../functions/forward/handler.ts';
import { accessFilePath, localToken, plannedPolicies, writeAccessFile } from '../../local/access-file.ts';
import type { ReceivedPoint } from '../../local/receiver/metrics.ts';
import { type Receiver, startReceiver } from '../../local/receiver/server.ts';
import type { Destination, Settings } from '../../schemas/settings.ts';
import { type FrameworkServer, postPush, serveFunction } from '../support/framework-server.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const PROJECT = 'local-project';
const KEY = 'metrics-signing-key-0123456789';

const hook = (id: string, base: string): Destination =>
  ({
    id,
    type: 'webhook',
    base_url: base,
    config: { path: `/${id}` },
    secrets: { signing_key: 'KEY' },
    timeout_ms: 2_000,
  }) as Destination;

const settingsFor = (base: string): Settings =>
  ({
    name: 'metricstest',
    project: PROJECT,
    region: 'europe-west1',
    dataset: 'events',
    destinations: [hook('hook-a', base), hook('hook-b', base)],
  }) as Settings;

const event = (id: string, ageMs: number) =>
  ({
    event_id: id,
    event_name: 'purchase',
    event_time: new Date().toISOString(),
    received_at: new Date(Date.now() - ageMs).toISOString(),
    payload_digest: 'e'.repeat(64),
    event_data: { value: 1 },
  }) as unknown as StoredEvent;

/** A forward handler over the real HTTP sender; its ledger rows kept in memory. */
async function serveForward(name: string, settings: Settings, rows: LedgerEntry['row'][]) {
  return serveFunction(
    name,
    createForwardHandler({ settings, plan: plan(settings) }, () => ({
      secrets: { get: async () => KEY, peek: () => ({ value: KEY }) },
      send: createHttpSender(),
      ledger: {
        write: async (entries) => {
          rows.push(...entries.map((e) => e.row));
          return [];
        },
      },
    })),
  );
}

const push = (server: FrameworkServer, id: string, destination: string, ageMs = 1_000) =>
  postPush(server.url, {
    ...deliveryMessage(event(id, ageMs), destination),
    messageId: `m-${id}`,
    subscription: `projects/${PROJECT}/subscriptions/deliveries-${destination}-push`,
  });

describe('local: delivery metrics through the OTLP exporter to the receiver', function () {
  this.timeout(90_000);
  let dir: string;
  let receiver: Receiver;
  let forward: FrameworkServer;
  let metrics: Metrics | undefined;
  const rows: LedgerEntry['row'][] = [];
  const member = (w: Workload) => workloadMember(w, PROJECT);
  const portOf = (w: Workload) => `http://127.0.0.1:${receiver.identityPorts.get(member(w))}`;
  const owner = () => ({ authorization: `Bearer ${localToken(dir, 'owner', PROJECT)}` });
  const read = async (name: string): Promise<ReceivedPoint[]> => {
    const res = await fetch(`${receiver.url}/metrics.json?name=${encodeURIComponent(name)}`, {
      headers: owner(),
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { points: ReceivedPoint[] }).points;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'receiver-metrics-'));
    writeAccessFile(
      dir,
      await plannedPolicies(process.execPath, REPO_ROOT, join(REPO_ROOT, 'environments', 'local.yaml')),
    );
    const placeholder = settingsFor('http://127.0.0.1:1');
    receiver = await startReceiver({
      webhooks: placeholder.destinations ?? [],
      signingKey: async () => KEY,
      project: PROJECT,
      iam: {
        file: accessFilePath(dir),
        identities: (['forward', 'gateway'] as const).map((w) => ({ member: member(w), port: 0 })),
      },
    });
    forward = await serveForward('forwardMetricsToReceiver', settingsFor(receiver.url), rows);
    // The exporter sends no credentials to a local endpoint: forward's own port says who it is.
    metrics = setupMetrics({
      service: 'forward',
      project: PROJECT,
      endpoint: portOf('forward'),
      intervalMs: 3_600_000,
    });
  });
  after(async () => {
    await metrics?.shutdown();
    await forward?.close();
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a delivery's outcome and end-to-end latency arrive per destination", async () => {
    for (const [id, to, age] of [
      ['m-a1', 'hook-a', 1_000],
      ['m-a2', 'hook-a', 3_000],
      ['m-b1', 'hook-b', 20_000],
    ] as const)
      assert.equal((await push(forward, id, to, age)).status, 204);
    assert.deepEqual(
      rows.map((r) => `${r.destination} ${r.status}`),
      ['hook-a delivered', 'hook-a delivered', 'hook-b delivered'],
    );
    assert.equal(receiver.received('hook-a').length, 2);
    await metrics?.flush();

    const outcomes = await read(DELIVERY_METRICS.outcomes);
    const count = (d: string) =>
      outcomes.find(
        (p) =>
          p.attributes[METRIC_ATTRIBUTES.destination] === d &&
          p.attributes[METRIC_ATTRIBUTES.status] === 'delivered',
      );
    assert.equal(count('hook-a')?.value, 2);
    assert.equal(count('hook-b')?.value, 1);
    assert.equal(count('hook-a')?.service, 'forward');
    assert.equal(count('hook-a')?.kind, 'sum');

    const latency = await read(DELIVERY_METRICS.latency);
    const of = (d: string) => latency.find((p) => p.attributes[METRIC_ATTRIBUTES.destination] === d);
    assert.equal(of('hook-a')?.unit, 'ms');
    assert.equal(of('hook-a')?.count, 2);
    // recorded_at − received_at: at least the events' ages (1 s + 3 s; 20 s), plus the delivery.
    assert.ok(
      (of('hook-a')?.sum ?? 0) >= 4_000 && (of('hook-a')?.sum ?? 0) < 60_000,
      String(of('hook-a')?.sum),
    );
    assert.ok((of('hook-b')?.sum ?? 0) >= 20_000, String(of('hook-b')?.sum));
    assert.equal(of('hook-b')?.attributes[METRIC_ATTRIBUTES.platform], 'webhook');
    // The 20 s delivery lands in the (10 s, 30 s] bucket.
    const bounds = of('hook-b')?.explicitBounds ?? [];
    const bucket = bounds.indexOf(30_000);
    assert.ok(bucket > 0);
    assert.equal(of('hook-b')?.bucketCounts?.[bucket], 1);

    const calls = await read(DELIVERY_METRICS.callDuration);
    assert.equal(
      calls.find((p) => p.attributes[METRIC_ATTRIBUTES.destination] === 'hook-a')?.count,
      2,
      'the call duration of each delivery',
    );
  });

  it('enforces the grants: the gateway 403, no credentials or a forged token 401, reading needs its permission', async () => {
    const body = JSON.stringify({ resourceMetrics: [] });
    const post = (base: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    assert.equal((await post(portOf('forward'))).status, 200);
    const denied = await post(portOf('gateway'));
    assert.equal(denied.status, 403);
    const error = (
      (await denied.json()) as { error: { status: string; message: string; details: unknown[] } }
    ).error;
    assert.equal(error.status, 'PERMISSION_DENIED');
    assert.match(error.message, /monitoring\.timeSeries\.create/);
    assert.match(JSON.stringify(error.details), /monitoring\.googleapis\.com/);
    assert.equal((await post(receiver.url)).status, 401);
    assert.equal((await post(receiver.url, { authorization: 'Bearer forged' })).status, 401);
    // With forward's token, as on its port.
    assert.equal(
      (await post(receiver.url, { authorization: `Bearer ${localToken(dir, 'forward', PROJECT)}` })).status,
      200,
    );
    // Reading: forward writes points but may not list them (roles/monitoring.viewer has that).
    const listed = await fetch(`${portOf('forward')}/metrics.json`);
    assert.equal(listed.status, 403);
    assert.equal((await fetch(`${receiver.url}/metrics.json`)).status, 401);
    assert.equal((await fetch(`${receiver.url}/metrics.json`, { headers: owner() })).status, 200);
    // Not OTLP's JSON encoding (protobuf, text): 415; JSON that does not parse: 400.
    const posted = (type: string, payload: string) =>
      fetch(`${portOf('forward')}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: payload,
      });
    assert.equal((await posted('application/x-protobuf', 'x')).status, 415);
    assert.equal((await posted('text/plain', '{}')).status, 415);
    assert.equal((await posted('application/json', '{not json')).status, 400);
  });
});

describe('local: a metrics endpoint that is down or silent costs no delivery', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  let forward: FrameworkServer;
  let silent: Server;
  let metrics: Metrics | undefined;
  const rows: LedgerEntry['row'][] = [];

  before(async () => {
    const settings = settingsFor('http://127.0.0.1:1');
    receiver = await startReceiver({ webhooks: settings.destinations ?? [], signingKey: async () => KEY });
    forward = await serveForward('forwardMetricsEndpointDown', settingsFor(receiver.url), rows);
    // Accepts connections and never answers.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await metrics?.shutdown();
    metrics = undefined;
  });
  after(async () => {
    silent?.closeAllConnections();
    await new Promise<void>((resolve) => silent?.close(() => resolve()));
    await forward?.close();
    await receiver?.close();
  });

  /** A closed port: a receiver that was started and stopped. */
  const stoppedEndpoint = async () => {
    const r = await startReceiver({ webhooks: [], signingKey: async () => undefined });
    const url = r.url;
    await r.close();
    return url;
  };

  for (const [what, endpoint] of [
    ['stopped', stoppedEndpoint],
    ['never answering', async () => `http://127.0.0.1:${(silent.address() as AddressInfo).port}`],
  ] as const)
    it(`the receiver ${what}: 60 deliveries, four at a time, none waiting on an export given up at its bound`, async () => {
      // An export every 50 ms, each given up after 200 ms, while the pushes run.
      metrics = setupMetrics({
        service: 'forward',
        project: PROJECT,
        endpoint: await endpoint(),
        intervalMs: 50,
        timeoutMs: 200,
      });
      const before = rows.length;
      const started = performance.now();
      // Four at a time, two a destination: within the concurrency a destination starts with
      // (START_LIMIT), so on a loaded machine no push waits for a slot and is shed with a 503 by
      // the limiter (a deferral about the destination, not the metrics this test is about).
      const answers: Response[] = [];
      for (let round = 0; round < 15; round++)
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 4 }, (_, j) => {
              const i = round * 4 + j;
              return push(forward, `down-${what}-${i}`, i % 2 ? 'hook-a' : 'hook-b');
            }),
          )),
        );
      const took = performance.now() - started;
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 204),
      );
      assert.equal(rows.length - before, 60);
      assert.ok(rows.slice(before).every((r) => r.status === 'delivered'));
      // Generous under load; a delivery that waited on an export would take 200 ms a push.
      assert.ok(took < 10_000, `60 deliveries took ${Math.round(took)} ms`);
      const flushStarted = performance.now();
      await metrics?.flush();
      const flushTook = performance.now() - flushStarted;
      assert.ok(flushTook < 5_000, `a flush to a dead endpoint took ${Math.round(flushTook)} ms`);
    });
});
