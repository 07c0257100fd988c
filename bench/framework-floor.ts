/**
 * The floor under `store` and `forward`: what one Pub/Sub push costs the functions framework
 * itself, with a handler that only decodes the push and answers 204, beside a bare node:http
 * server doing the same, both measured on this machine in the same run as the function they sit
 * under. The hard gates for store and forward are absolute (ms of CPU), and a slower or busier
 * machine moves them; these two figures say how much of a function's CPU is ours.
 *
 * The framework server is the one `functions/serve.ts` runs in production (the framework's own
 * `getServer`, every middleware it installs); the push body is shaped as Pub/Sub sends it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { autocannon, start, stop } from './child.ts';
import { processCpuMs } from './proc-cpu.ts';

/** CPU of one push, in ms, for each server. */
export interface PushFloor {
  readonly frameworkMs: number;
  readonly bareMs: number;
}

/** A push of one ~700-byte event, as Pub/Sub's push delivers it. */
function pushBody(): string {
  const event = {
    event_name: 'purchase',
    event_id: 'floor-1',
    event_time: new Date().toISOString(),
    user_id: 'u1',
    value: 49.9,
    currency: 'EUR',
    page: { url: 'https://shop.example/p/1' },
    consent: { ads: 'granted', analytics: 'granted' },
    content_name: 'x'.repeat(400),
  };
  return JSON.stringify({
    message: {
      data: Buffer.from(JSON.stringify(event)).toString('base64'),
      attributes: { event_name: 'purchase', event_id: 'floor-1', schema_version: '1', source: 'gateway' },
      messageId: '1234567890',
      publishTime: new Date().toISOString(),
    },
    subscription: 'projects/bench/subscriptions/floor',
  });
}

/** The handler's whole work: the event out of the push. */
const decode = (push: { message?: { data?: string } }) =>
  JSON.parse(Buffer.from(push.message?.data ?? '', 'base64').toString('utf8')) as unknown;

/** CPU ms per push of `url`'s server process over `seconds`, after a warm-up. */
async function perPush(pid: number | undefined, url: string, seconds: number): Promise<number> {
  const opts = {
    url,
    method: 'POST',
    body: pushBody(),
    headers: { 'content-type': 'application/json' },
    connections: 20,
  };
  await autocannon({ ...opts, duration: Math.max(0.25, seconds / 3) });
  const before = processCpuMs(pid);
  const r = await autocannon({ ...opts, duration: seconds });
  const after = processCpuMs(pid);
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`floor server answered ${r.non2xx} non-2xx, ${r.errors} errors`);
  return ((after ?? Number.NaN) - (before ?? Number.NaN)) / r.requests.total;
}

/** Measures both floors, each server in its own process, one after the other. */
export async function pushFloor(seconds: number): Promise<PushFloor> {
  const out: Record<string, number> = {};
  for (const kind of ['framework', 'bare'] as const) {
    const server = await start(['bench/framework-floor.ts', kind], { PORT: '0' });
    try {
      out[kind] = await perPush(server.child.pid, server.url, seconds);
    } finally {
      await stop(server.child);
    }
  }
  return { frameworkMs: out['framework'] ?? Number.NaN, bareMs: out['bare'] ?? Number.NaN };
}

/** One line for a figure's detail. */
export const floorText = (f: PushFloor) =>
  `a push costs the functions framework alone ${f.frameworkMs.toFixed(2)} ms (its server, a handler that only decodes it) and a bare node:http server ${f.bareMs.toFixed(2)} ms, on this machine in this run`;

async function serveFramework(): Promise<void> {
  const { http } = await import('@google-cloud/functions-framework');
  const { serveRegistered } = await import('../functions/serve.ts');
  const { listenAddress } = await import('../core/runtime-config.ts');
  http('floor', (req, res) => {
    decode(req.body as { message?: { data?: string } });
    res.status(204).end();
  });
  serveRegistered('floor', listenAddress(process.env));
}

function serveBare(): void {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      decode(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.statusCode = 204;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`bare push server on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
}

if (import.meta.main) {
  if (process.argv[2] === 'framework') await serveFramework();
  else if (process.argv[2] === 'bare') serveBare();
}
