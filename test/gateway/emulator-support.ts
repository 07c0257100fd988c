/** A real Pub/Sub emulator on port 0 with the topics and a pull subscription per topic. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPubSubEmulator } from '../../emulators/pubsub/server.ts';

export interface Bus {
  readonly host: string;
  readonly url: string;
  /** Pulls (and acks) everything available on the topic's test subscription. */
  drain(topic: string): Promise<{ data: string; attributes: Record<string, string>; messageId: string }[]>;
  close(): Promise<void>;
}

export async function startBus(project: string, topics: readonly string[]): Promise<Bus> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bus-'));
  const emu = await startPubSubEmulator({ port: 0, dataDir, fsync: 'none' });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${emu.url}/v1/projects/${project}/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  for (const t of topics) {
    await api('PUT', `topics/${t}`, {});
    await api('PUT', `subscriptions/${t}-test`, {
      topic: `projects/${project}/topics/${t}`,
      ackDeadlineSeconds: 60,
    });
  }
  return {
    host: emu.url.replace(/^http:\/\//, ''),
    url: emu.url,
    async drain(topic) {
      const out: { data: string; attributes: Record<string, string>; messageId: string }[] = [];
      for (;;) {
        const r = (await api('POST', `subscriptions/${topic}-test:pull`, {
          maxMessages: 1000,
          returnImmediately: true,
        })) as {
          receivedMessages?: {
            ackId: string;
            message: { data: string; attributes?: Record<string, string>; messageId: string };
          }[];
        };
        const got = r.receivedMessages ?? [];
        if (got.length === 0) return out;
        for (const m of got) {
          out.push({
            data: Buffer.from(m.message.data, 'base64').toString('utf8'),
            attributes: m.message.attributes ?? {},
            messageId: m.message.messageId,
          });
        }
        await api('POST', `subscriptions/${topic}-test:acknowledge`, { ackIds: got.map((m) => m.ackId) });
      }
    },
    async close() {
      await emu.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
