/**
 * Pub/Sub emulator benchmark (issue 3 §3): publish throughput with 1000-message Publish calls
 * through the raw v1.PublisherClient (fsync always and none) and through topic.publishMessage,
 * streaming-pull delivery rate, and push delivery rate to a local functions-framework function.
 * Baseline for each: the same message bytes appended to a plain file in 1000-message writes with
 * the same fsync policy, i.e. what the disk alone allows.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http as registerHttp } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { type Message, PubSub, v1 } from '@google-cloud/pubsub';
import { credentials } from '@grpc/grpc-js';
import type { BenchFigure, BenchSuite } from './lib.ts';

const PROJECT = 'bench';
const PAYLOAD = Buffer.alloc(200, 'x');
const ATTRIBUTES = { event_name: 'view_content', destination: 'store' };
const BATCH = 1000;
const CONCURRENCY = 4;

function messageBytes(): number {
  let n = PAYLOAD.length;
  for (const [k, v] of Object.entries(ATTRIBUTES)) n += k.length + v.length;
  return n;
}

/** The same bytes appended to a plain file, 1000 messages per write, with the same fsync policy. */
async function fileBaseline(dir: string, messages: number, fsync: boolean): Promise<number> {
  const fh = await open(join(dir, `baseline-${fsync ? 'sync' : 'nosync'}.bin`), 'a');
  const chunk = Buffer.alloc(messageBytes() * BATCH, 'x');
  const started = performance.now();
  for (let i = 0; i < messages / BATCH; i++) {
    await fh.write(chunk);
    if (fsync) await fh.datasync();
  }
  const seconds = (performance.now() - started) / 1000;
  await fh.close();
  return messages / seconds;
}

interface PubSubEmulator {
  readonly url: string;
  readonly port: number;
}

const MAIN = new URL('../emulators/pubsub/main.ts', import.meta.url).pathname;

/** Runs the emulator as its own process, as `npm run emulator:pubsub` does (client and server on separate cores). */
async function withEmulator<T>(
  fsync: 'always' | 'none',
  fn: (emu: PubSubEmulator) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'pubsub-bench-'));
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--data-dir', dataDir, '--fsync', fsync], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
    });
    return await fn({ url, port: Number(new URL(url).port) });
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function rawPublish(emu: PubSubEmulator, topic: string, messages: number): Promise<number> {
  const client = new v1.PublisherClient({
    servicePath: '127.0.0.1',
    port: emu.port,
    sslCreds: credentials.createInsecure(),
  });
  const batch = Array.from({ length: BATCH }, () => ({ data: PAYLOAD, attributes: ATTRIBUTES }));
  const name = `projects/${PROJECT}/topics/${topic}`;
  // One Publish per call, as the gateway makes them (adapters/publisher.ts): without
  // this, gax's request bundler re-counts every message of an already full 1000-message call.
  const options = { isBundling: false };
  await client.publish({ topic: name, messages: batch.slice(0, 1) }, options);
  let sent = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < messages) {
        sent += BATCH;
        await client.publish({ topic: name, messages: batch }, options);
      }
    }),
  );
  const rate = sent / ((performance.now() - started) / 1000);
  await client.close();
  return rate;
}

async function createTopic(emu: PubSubEmulator, topic: string, sub?: Record<string, unknown>): Promise<void> {
  await fetch(`${emu.url}/v1/projects/${PROJECT}/topics/${topic}`, { method: 'PUT' });
  if (sub) {
    await fetch(`${emu.url}/v1/projects/${PROJECT}/subscriptions/${topic}-sub`, {
      method: 'PUT',
      body: JSON.stringify({ topic: `projects/${PROJECT}/topics/${topic}`, ...sub }),
    });
  }
}

async function clientPublish(emu: PubSubEmulator, topicName: string, n: number): Promise<number> {
  const ps = new PubSub({ projectId: PROJECT, apiEndpoint: `127.0.0.1:${emu.port}` });
  const topic = ps.topic(topicName, { batching: { maxMessages: 1000, maxMilliseconds: 10 } });
  const started = performance.now();
  const pending: Promise<string>[] = [];
  for (let i = 0; i < n; i++) pending.push(topic.publishMessage({ data: PAYLOAD, attributes: ATTRIBUTES }));
  await Promise.all(pending);
  const rate = n / ((performance.now() - started) / 1000);
  await ps.close();
  return rate;
}

/** Raw StreamingPull: one stream, acks sent as unary Acknowledge calls of 1000 ids (as the client does). */
async function rawStreamingPull(emu: PubSubEmulator, subName: string, n: number): Promise<number> {
  const client = new v1.SubscriberClient({
    servicePath: '127.0.0.1',
    port: emu.port,
    sslCreds: credentials.createInsecure(),
  });
  const subscription = `projects/${PROJECT}/subscriptions/${subName}`;
  const started = performance.now();
  let received = 0;
  const acks: Promise<unknown>[] = [];
  let pendingAcks: string[] = [];
  const stream = client.streamingPull();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`raw streaming pull got ${received}/${n} in 30 s`)),
      30_000,
    );
    stream.on('error', (err: Error) => {
      if (received < n) reject(err);
    });
    stream.on('data', (res: { receivedMessages?: { ackId?: string | null }[] | null }) => {
      for (const m of res.receivedMessages ?? []) {
        pendingAcks.push(m.ackId ?? '');
        received++;
      }
      if (pendingAcks.length >= 1000 || received >= n) {
        acks.push(client.acknowledge({ subscription, ackIds: pendingAcks }));
        pendingAcks = [];
      }
      if (received >= n) {
        clearTimeout(timer);
        resolve();
      }
    });
    stream.write({ subscription, streamAckDeadlineSeconds: 60, maxOutstandingMessages: 10_000 });
  });
  await Promise.all(acks);
  const rate = n / ((performance.now() - started) / 1000);
  stream.cancel();
  await client.close();
  return rate;
}

async function clientStreamingPull(emu: PubSubEmulator, subName: string, n: number): Promise<number> {
  const ps = new PubSub({ projectId: PROJECT, apiEndpoint: `127.0.0.1:${emu.port}` });
  const sub = ps.subscription(subName, { flowControl: { maxMessages: 5000 } });
  let received = 0;
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`streaming pull got ${received}/${n} in 30 s`)), 30_000);
    sub.on('error', reject);
    sub.on('message', (m: Message) => {
      m.ack();
      received++;
      if (received >= n) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const rate = n / ((performance.now() - started) / 1000);
  await sub.close();
  await ps.close();
  return rate;
}

async function pushRate(emu: PubSubEmulator, n: number): Promise<number> {
  let pushed = 0;
  let done: () => void = () => undefined;
  registerHttp('pubsubBenchPushTarget', (_req, res) => {
    pushed++;
    if (pushed === n) done();
    res.status(204).send('');
  });
  const fn: Server = getTestServer('pubsubBenchPushTarget');
  await new Promise<void>((resolve) => fn.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(fn.address() as AddressInfo).port}/`;
    await createTopic(emu, 'push');
    const allPushed = new Promise<void>((resolve) => {
      done = resolve;
    });
    await fetch(`${emu.url}/v1/projects/${PROJECT}/subscriptions/push-sub`, {
      method: 'PUT',
      body: JSON.stringify({
        topic: `projects/${PROJECT}/topics/push`,
        pushConfig: { pushEndpoint: endpoint },
      }),
    });
    const started = performance.now();
    await rawPublish(emu, 'push', n);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      allPushed,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`push got ${pushed}/${n} in 30 s`)), 30_000);
      }),
    ]).finally(() => clearTimeout(timer));
    return n / ((performance.now() - started) / 1000);
  } finally {
    fn.closeAllConnections();
    fn.close();
  }
}

export const suite: BenchSuite = {
  name: 'pubsub emulator',
  async run({ quick }): Promise<BenchFigure[]> {
    process.env['METADATA_SERVER_DETECTION'] = 'none';
    // Message counts: quick mode sends a twentieth (checks the paths work, not their speed).
    const n = (full: number) => (quick ? full / 20 : full);
    const dir = mkdtempSync(join(tmpdir(), 'pubsub-bench-file-'));
    const figures: BenchFigure[] = [];
    try {
      const fileSync = {
        name: 'plain file append, fdatasync per 1000 messages',
        value: await fileBaseline(dir, n(100_000), true),
      };
      const fileNoSync = {
        name: 'plain file append, no fsync',
        value: await fileBaseline(dir, n(100_000), false),
      };
      const bytes = `${messageBytes()} bytes per message (200 data + 2 attributes)`;

      const rawNone = await withEmulator('none', async (emu) => {
        await createTopic(emu, 'raw');
        return rawPublish(emu, 'raw', n(100_000));
      });

      await withEmulator('always', async (emu) => {
        await createTopic(emu, 'raw');
        const rawAlways = await rawPublish(emu, 'raw', n(100_000));
        figures.push({
          name: 'publish, raw v1.PublisherClient, 1000-message calls, fsync always',
          value: rawAlways,
          unit: 'msg/s',
          baseline: fileSync,
          target: { op: '>=', value: 100_000 },
          detail: `${CONCURRENCY} calls in flight, ${bytes}, emulator in its own process`,
        });
        figures.push({
          name: 'publish, raw v1.PublisherClient, 1000-message calls, fsync none',
          value: rawNone,
          unit: 'msg/s',
          baseline: fileNoSync,
          target: { op: '>=', value: 100_000 },
          detail: `fsync always costs ${((1 - rawAlways / rawNone) * 100).toFixed(1)}% of the no-fsync rate`,
        });

        await createTopic(emu, 'batched');
        figures.push({
          name: 'publish, topic.publishMessage (client batches of 1000 / 10 ms), fsync always',
          value: await clientPublish(emu, 'batched', n(30_000)),
          unit: 'msg/s',
          baseline: fileSync,
          detail: 'bounded by the client library, which handles every message on one core',
        });

        await createTopic(emu, 'pull', {});
        await createTopic(emu, 'pull2', {});
        await rawPublish(emu, 'pull', n(60_000));
        await rawPublish(emu, 'pull2', n(30_000));
        figures.push({
          name: 'delivery, raw StreamingPull + Acknowledge, fsync always',
          value: await rawStreamingPull(emu, 'pull-sub', n(60_000)),
          unit: 'msg/s',
          baseline: fileSync,
          target: { op: '>=', value: 50_000 },
          detail: '60,000 messages in backlog, one stream, 10,000 outstanding, acks of 1000 ids',
        });
        figures.push({
          name: 'delivery, client subscriber (5 streams, ack each), fsync always',
          value: await clientStreamingPull(emu, 'pull2-sub', n(30_000)),
          unit: 'msg/s',
          baseline: fileSync,
          detail: 'bounded by the client library (per-message events, lease management)',
        });

        figures.push({
          name: 'delivery, push to a local functions-framework http function (204), fsync always',
          value: await pushRate(emu, n(10_000)),
          unit: 'msg/s',
          baseline: fileSync,
          detail: 'from first publish to last push; up to 1000 requests in flight over keep-alive',
        });
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return figures;
  },
};

if (import.meta.main) {
  const { formatFigure } = await import('./lib.ts');
  for (const f of await suite.run({ quick: process.argv.includes('--quick') })) console.log(formatFigure(f));
}
