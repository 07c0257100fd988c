/**
 * A Cloud Storage outage under a running gateway (docs/registry.md, Reading). The Cloud Storage
 * emulator runs as its own process, read through Google's client with its default retries.
 * - While the gateway holds a copy of the definitions, the emulator is stopped (SIGSTOP: its
 *   connections are accepted and never answered, the worst case) for a few seconds: publishes of
 *   a defined event see no added latency, their p99 compared with the same run's p99 before it
 *   (a same-run ratio, not a time), and they are still validated against the copy.
 * - The emulator is killed (connections refused), then started again on the same port and data.
 * - A gateway that never had a copy answers every request within a second (503 for the defined
 *   event, 200 for catalogue events), and accepts the defined event again, without a restart,
 *   once the emulator is back.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage } from '@google-cloud/storage';
import { Definitions } from '../../adapters/definitions.ts';
import { RegistryClient, RegistryReader } from '../../adapters/registry.ts';
import { percentile } from '../../bench/lib.ts';
import { FakePublisher, startTestGateway, type TestGateway } from '../gateway/support.ts';
import { exited, launchEmulator } from '../support/emulator-process.ts';
import { until } from '../support/until.ts';

const BUCKET = 'outage-registry';
/** The same-run ratio allowed between the p99s: generous, as noise on two shared cores is. */
const MAX_RATIO = 5;
/**
 * The baseline's p99 counts as at least this much, so that a fast, quiet baseline (1–2 ms) does
 * not turn scheduling noise into a failure. A request waiting on Cloud Storage during the outage
 * (what this checks against) waits for a refused connection and the client's handling of it,
 * then for the reader; without background refreshes that showed as seconds.
 */
const BASELINE_FLOOR_MS = 40;

describe('registry: a Cloud Storage outage under a running gateway', () => {
  let dataDir: string;
  let emulator: ChildProcess | undefined;
  let port: number;
  let gw: TestGateway | undefined;

  /** Starts the emulator (again, on the same port and data when it ran before). */
  const startStorage = async () => {
    const started = await launchEmulator('storage', dataDir, port ? ['--port', String(port)] : []);
    emulator = started.child;
    port = Number(new URL(started.url).port);
  };
  const stopStorage = async () => {
    emulator?.kill('SIGKILL');
    if (emulator) await exited(emulator);
    emulator = undefined;
  };
  /** A registry client on the emulator's port, as the gateway makes it (the client's own retries on). */
  const registry = () =>
    new RegistryClient(
      new Storage({ projectId: 'test-project', apiEndpoint: `http://127.0.0.1:${port}` }).bucket(BUCKET),
    );

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'registry-outage-'));
    port = 0;
    await startStorage();
    await new Storage({ projectId: 'test-project', apiEndpoint: `http://127.0.0.1:${port}` }).createBucket(
      BUCKET,
    );
    await registry().apply(
      [
        {
          kind: 'EventDefinition',
          name: 'quote_requested',
          spec: { fields: [{ name: 'amount', type: 'number', required: true }] },
        },
      ],
      { author: 'test' },
    );
  });
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });
  after(async () => {
    await stopStorage();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown) =>
    fetch(`${gw?.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw?.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** Publishes the defined event `n` times, 10 at a time; each one's status and milliseconds. */
  const publishes = async (n: number, body: unknown = { amount: 3 }) => {
    const out: { status: number; ms: number }[] = [];
    for (let i = 0; i < n; i += 10)
      out.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, async () => {
            const started = performance.now();
            const res = await post('/v1/topics/quote_requested', body);
            await res.arrayBuffer();
            return { status: res.status, ms: performance.now() - started };
          }),
        )),
      );
    return out;
  };

  it('holding a copy: publishes during the outage keep their latency and their validation', async () => {
    const client = registry();
    // Refreshed every 100 ms, so that reads are attempted all through the outage; a read with no
    // answer after 1 s counts as failed (20 s in production), so the outage is seen within it.
    const reader = new RegistryReader(client, { maxAgeMs: 100, readTimeoutMs: 1000 });
    gw = await startTestGateway({
      publisher: new FakePublisher(),
      definitions: new Definitions(reader, client),
    });
    await publishes(50); // warm-up: the first read, JIT
    const before = await publishes(300);
    assert.deepEqual(new Set(before.map((r) => r.status)), new Set([200]));

    emulator?.kill('SIGSTOP');
    const during: { status: number; ms: number }[] = [];
    const outageEnds = performance.now() + 3000;
    while (performance.now() < outageEnds) during.push(...(await publishes(50)));
    assert.deepEqual(new Set(during.map((r) => r.status)), new Set([200]));
    assert.equal(reader.cached('EventDefinition')?.stale, true, 'the reader saw the outage');
    const invalid = await post('/v1/topics/quote_requested', { amount: 'three' });
    assert.equal(invalid.status, 400, 'still validated against the copy');

    const p99 = (xs: { ms: number }[]) =>
      percentile(
        xs.map((r) => r.ms),
        99,
      );
    const ratio = p99(during) / Math.max(p99(before), BASELINE_FLOOR_MS);
    assert.ok(
      ratio <= MAX_RATIO,
      `p99 ${p99(during).toFixed(1)} ms during the outage, ${p99(before).toFixed(1)} ms before it: ${ratio.toFixed(2)}x`,
    );
    emulator?.kill('SIGCONT');
  });

  it('with no copy: answers within a second, and recovers without a restart when Cloud Storage is back', async () => {
    await stopStorage();
    const client = registry();
    const reader = new RegistryReader(client);
    gw = await startTestGateway({
      publisher: new FakePublisher(),
      definitions: new Definitions(reader, client),
    });
    const answers = await publishes(30);
    for (const a of answers) {
      assert.equal(a.status, 503);
      assert.ok(a.ms < 1000, `answered after ${a.ms.toFixed(0)} ms`);
    }
    const catalogue = await post('/v1/topics/page_view', { page: { url: 'https://shop.example/' } });
    assert.equal(catalogue.status, 200, 'catalogue events need no definitions');

    await startStorage();
    const back = await until(
      'the defined event accepted again',
      async () => ((await publishes(10))[0]?.status === 200 ? true : undefined),
      20_000,
      100,
    );
    assert.equal(back, true);
    assert.equal((await post('/v1/topics/quote_requested', { amount: 'x' })).status, 400);
  });
});
