/**
 * The functions' refusals (functions/answer.ts, in core/step.ts's style) through the functions
 * framework on loopback ports: store, forward and schedule each answer a request that is not a
 * POST with 405 and `Allow: POST`, and forward and schedule a body that is not a Pub/Sub push with
 * 400 INVALID_ENVELOPE, in Google's error envelope, before anything else is touched.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { http } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { plan } from '../../core/plan.ts';
import { storeConfig } from '../../core/store/store.ts';
import { createForwardHandler } from '../../functions/forward/handler.ts';
import { createScheduleHandler } from '../../functions/schedule/handler.ts';
import { createStoreHandler } from '../../functions/store/handler.ts';
import { testSettings } from '../storage/support.ts';

const settings = testSettings();
const p = plan(settings);
const untouched = (): never => {
  throw new Error('a refused request reached the services');
};

describe('functions: refusals answered from returned steps', () => {
  const servers: Server[] = [];
  const urls: Record<string, string> = {};

  before(async () => {
    http(
      'answerStore',
      createStoreHandler({ config: storeConfig(settings, p), writer: { write: untouched } }),
    );
    http('answerForward', createForwardHandler({ settings, plan: p }, untouched));
    http('answerSchedule', createScheduleHandler(untouched));
    // Another run holds the lock of every resource: a run message cannot start now.
    const held = {
      run: 'Alert/meta-failing@2026-11-26T16:00:00.000Z',
      slot: '2026-11-26T16:00:00.000Z',
      trigger: 'schedule' as const,
      cursor: null,
      chunk: 0,
      lease_until: Date.now() + 600_000,
      last_slot: null,
      last_run: null,
      last_finished_at: null,
      failures: 0,
      last_error: null,
      last_outcome: null,
    };
    const busyJob = { kind: 'Alert', scheduled: async () => [], chunk: untouched };
    http(
      'answerScheduleBusy',
      createScheduleHandler(() => ({
        jobs: [busyJob],
        locks: { read: async () => ({ state: held, generation: 1 }), write: untouched, fence: untouched },
        publish: untouched,
        leaseMs: 60_000,
      })),
    );
    for (const [name, target] of [
      ['store', 'answerStore'],
      ['forward', 'answerForward'],
      ['schedule', 'answerSchedule'],
      ['scheduleBusy', 'answerScheduleBusy'],
    ] as const) {
      const server = getTestServer(target);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    }
  });
  after(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  const envelope = async (res: Response) =>
    (await res.json()) as { error: { code: number; status: string; details: { reason?: string }[] } };

  for (const name of ['store', 'forward', 'schedule'])
    it(`${name} answers a GET with 405, Allow: POST and the METHOD_NOT_ALLOWED envelope`, async () => {
      const res = await fetch(urls[name] as string);
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
      const body = await envelope(res);
      assert.equal(body.error.code, 405);
      assert.equal(body.error.details[0]?.reason, 'METHOD_NOT_ALLOWED');
    });

  for (const name of ['forward', 'schedule'])
    it(`${name} answers a body that is not a push with 400 INVALID_ENVELOPE, reading nothing`, async () => {
      const res = await fetch(urls[name] as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ hello: 'stray' }),
      });
      assert.equal(res.status, 400);
      const body = await envelope(res);
      assert.equal(body.error.status, 'INVALID_ARGUMENT');
      assert.equal(body.error.details[0]?.reason, 'INVALID_ENVELOPE');
    });

  // A test fire that met the alert's scheduled evaluation was acknowledged and lost: no tick
  // brings a manual run back, so Pub/Sub must.
  it('schedule answers 503 to a manual run that another run keeps from starting, 204 to a scheduled one', async () => {
    const push = (trigger: string) =>
      fetch(urls['scheduleBusy'] as string, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          message: {
            messageId: '1',
            attributes: { type: 'run' },
            data: Buffer.from(
              JSON.stringify({
                kind: 'Alert',
                name: 'meta-failing',
                slot: '2026-11-26T16:00:30.000Z',
                trigger,
              }),
            ).toString('base64'),
          },
          subscription: 'projects/local-project/subscriptions/runs-schedule',
        }),
      });
    const manual = await push('manual');
    assert.equal(manual.status, 503);
    assert.equal((await envelope(manual)).error.status, 'UNAVAILABLE');
    assert.equal((await push('schedule')).status, 204, 'the tick dispatches a scheduled one again');
  });
});
