/**
 * The parts of the delivery benches' layout they share: a webhook receiver in the bench's own
 * process (its arrivals counted as they come), the signed webhook destination naming it, the
 * settings every such bench starts from, and single-event POSTs to a local gateway.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import { join } from 'node:path';
import { type Receiver, startReceiver } from '../local/receiver/server.ts';
import type { Destination, Settings } from '../schemas/settings.ts';
import { SIGNING_KEY, SIGNING_KEY_NAME, testSettings } from '../test/delivery/support/stack.ts';

/** A receiver answering 200 to the signed webhook destination it returns; `arrival` sees each verified POST's event id. */
export async function startWebhookReceiver(
  arrival: (eventId: string) => void,
): Promise<{ receiver: Receiver; destination: Destination }> {
  const webhook = { ...(testSettings().destinations?.[0] as Destination) };
  // Bound once to learn a free port, then started again with the destination that names it.
  const probe = await startReceiver({ webhooks: [], signingKey: async () => SIGNING_KEY });
  const port = probe.port;
  await probe.close();
  const destination: Destination = { ...webhook, base_url: `http://127.0.0.1:${port}` };
  const receiver = await startReceiver({
    port,
    webhooks: [destination],
    signingKey: async () => SIGNING_KEY,
    respond: (r) => {
      if (r.eventId) arrival(r.eventId);
      return 200;
    },
    keep: 10,
  });
  return { receiver, destination };
}

/** The settings of a bench delivering to `destination`: slow retries (a retry is not what is measured). */
export function webhookSettings(destination: Destination): Settings {
  return {
    ...testSettings(),
    retry: { minimum_backoff: '1s', maximum_backoff: '10s', max_attempts: 10 },
    destinations: [destination],
  };
}

/** Writes the webhook's signing key where the supervisor loads secrets from (`<dataDir>/secrets`). */
export function writeSigningKey(dataDir: string): void {
  mkdirSync(join(dataDir, 'secrets'));
  writeFileSync(join(dataDir, 'secrets', SIGNING_KEY_NAME), SIGNING_KEY);
}

/** POSTs one event body to a local gateway's `view_content` topic with `token`; resolves with the status. */
export function gatewayPoster(port: number, token: string, agent: Agent): (body: string) => Promise<number> {
  return (body) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/v1/topics/view_content',
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls `send(i)` `rate` times a second for `seconds`, in 10 ms ticks; returns the send times. */
export async function offer(
  prefix: string,
  send: (id: string) => Promise<unknown>,
  rate: number,
  seconds: number,
): Promise<Map<string, number>> {
  const sent = new Map<string, number>();
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const pending: Promise<unknown>[] = [];
  let n = 0;
  while (n < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
    for (; n < due; n++) {
      const id = `${prefix}-${n}`;
      sent.set(id, performance.now());
      pending.push(send(id));
    }
    await sleep(10);
  }
  await Promise.all(pending);
  return sent;
}
