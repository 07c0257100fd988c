/**
 * A Cloud Storage outage under a running gateway (docs/registry.md, Reading). The Cloud Storage
 * emulator runs as its own process, read through Google's client with its default retries.
 * - While the gateway holds a copy of the definitions, the emulator is stopped (SIGSTOP: its
 *   connections are accepted and never answered, the worst case) for a few seconds, and the
 *   reader's reads wait a minute before they give up: a publish that waited on Cloud Storage could
 *   then end only once the emulator is resumed. Every publish of the outage must end before that,
 *   still validated against the copy, while the reader's reads started in it are still unanswered
 *   (the outage was real). No latency is compared: a timed test fails with the machine's load.
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
import { FakePublisher, startTestGateway, type TestGateway } from '../gateway/support.ts';
import { exited, launchEmulator } from '../support/emulator-process.ts';
import { until } from '../support/until.ts';

const BUCKET = 'outage-registry';
/** How long after the outage the emulator is resumed: a publish that waited on it ends only then. */
const RESUME_AFTER_MS = 10_000;

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

  it('holding a copy: publishes during the outage never wait on Cloud Storage, and are validated', async () => {
    const client = registry();
    // The reader's calls to Cloud Storage (a conditional check, then the index), counted: started,
    // and answered (or failed).
    const reads = { started: 0, settled: 0 };
    const counted =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A) => {
        reads.started++;
        const read = call(...args);
        void read.then(
          () => reads.settled++,
          () => reads.settled++,
        );
        return read;
      };
    client.indexChanged = counted(client.indexChanged.bind(client));
    client.readIndex = counted(client.readIndex.bind(client));
    // Refreshed every 100 ms, so that reads are attempted all through the outage; a read gives up
    // only after a minute, so a request that waited on one would wait for the emulator's resumption.
    const reader = new RegistryReader(client, { maxAgeMs: 100, readTimeoutMs: 60_000 });
    gw = await startTestGateway({
      publisher: new FakePublisher(),
      definitions: new Definitions(reader, client),
    });
    const before = await publishes(50); // the first read, JIT
    assert.deepEqual(new Set(before.map((r) => r.status)), new Set([200]));
    await reader.idle('EventDefinition');

    emulator?.kill('SIGSTOP');
    const stoppedAt = { started: reads.started, settled: reads.settled };
    let resumedAt = Number.POSITIVE_INFINITY;
    const resume = setTimeout(() => {
      resumedAt = performance.now();
      emulator?.kill('SIGCONT');
    }, 3000 + RESUME_AFTER_MS);
    try {
      const during: { status: number; ms: number }[] = [];
      const outageEnds = performance.now() + 3000;
      while (performance.now() < outageEnds) during.push(...(await publishes(50)));
      const invalid = await post('/v1/topics/quote_requested', { amount: 'three' });
      const endedAt = performance.now();
      assert.ok(
        endedAt < resumedAt,
        'a publish of the outage ended only once Cloud Storage answered again: it waited on it',
      );
      assert.deepEqual(new Set(during.map((r) => r.status)), new Set([200]));
      assert.equal(invalid.status, 400, 'still validated against the copy');
      assert.ok(reads.started > stoppedAt.started, 'the reader tried Cloud Storage during the outage');
      assert.equal(reads.settled, stoppedAt.settled, 'and got no answer: the outage was real');
    } finally {
      clearTimeout(resume);
      if (resumedAt === Number.POSITIVE_INFINITY) emulator?.kill('SIGCONT');
    }
    await until('the reads answered once the emulator is back', async () =>
      reads.settled === reads.started ? true : undefined,
    );
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
