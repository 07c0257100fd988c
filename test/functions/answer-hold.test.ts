/**
 * Only the last answer in flight waits for the exports (adapters/drain.ts, holdAnswer): Cloud Run
 * gives a request-billed instance CPU while any of its requests is being handled, so an answer
 * sent while another push is still open needs no wait, and the last one waits for what is queued.
 * Holding every answer for a shared export capped the pushes in flight: the delivery bench fell
 * from ~1,000 to ~150 events/s (p50 13 s). Real node:http requests on loopback; the export is a
 * promise the test settles, so the order is observed, not timed.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from '@google-cloud/functions-framework';
import { drainOnStop } from '../../adapters/drain.ts';

describe('functions: only the last answer in flight waits for the exports', function () {
  this.timeout(5_000);
  let server: Server;
  let url = '';
  let sigterm: ((...a: unknown[]) => void)[] = [];
  const releases = new Map<string, () => void>();
  let asked = 0;
  let settleExport: (() => void) | undefined;

  before(async () => {
    const known = new Set(process.listeners('SIGTERM'));
    const handler = drainOnStop(
      (req: Request, res: Response) => {
        const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
        // Each push answers when the test releases it.
        releases.set(id, () => res.end(id));
      },
      {
        component: 'test',
        exit: () => {},
        beforeAnswer: () => {
          asked++;
          return new Promise<void>((resolve) => {
            settleExport = resolve;
          });
        },
      },
    );
    sigterm = process.listeners('SIGTERM').filter((l) => !known.has(l)) as typeof sigterm;
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      handler(req as unknown as Request, res as unknown as Response);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const l of sigterm) process.removeListener('SIGTERM', l);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const opened = async (id: string): Promise<void> => {
    while (!releases.has(id)) await new Promise((r) => setImmediate(r));
  };

  it('answers at once while another push is open; the last one waits for the export', async () => {
    const first = fetch(`${url}/?id=a`).then((r) => r.text());
    const second = fetch(`${url}/?id=b`).then((r) => r.text());
    await Promise.all([opened('a'), opened('b')]);
    releases.get('a')?.();
    assert.equal(await first, 'a', 'the first answer left while b was open');
    assert.equal(asked, 0, 'nothing was awaited for it');
    let secondIn = false;
    void second.then(() => {
      secondIn = true;
    });
    releases.get('b')?.();
    while (asked === 0) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(secondIn, false, 'the last answer is held for the export');
    settleExport?.();
    assert.equal(await second, 'b');
    assert.equal(asked, 1);
  });
});
