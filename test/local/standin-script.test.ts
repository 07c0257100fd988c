/**
 * The platform stand-ins' scripted answers over HTTP (local/platforms/server.ts
 * `/_standin/fail-next`): what a test of the whole local environment uses to make a destination
 * fail for a while, the stand-in running in another process.
 */
import assert from 'node:assert/strict';
import { type PlatformReceiver, SCRIPT_PATH, startPlatformServer } from '../../local/platforms/server.ts';

describe('local: a platform stand-in scripted over HTTP', () => {
  let standin: PlatformReceiver;
  before(async () => {
    standin = await startPlatformServer(() => ({ status: 200, body: { ok: true } }));
  });
  after(() => standin.close());
  const post = (path: string, body: unknown) =>
    fetch(`${standin.url}${path}`, { method: 'POST', body: JSON.stringify(body) });

  it('answers the scripted statuses in order, then as before', async () => {
    const scripted = await post(SCRIPT_PATH, {
      answers: [{ status: 500 }, { status: 503, body: { e: 1 } }],
    });
    assert.equal(scripted.status, 204);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post('/events', {})).status);
    assert.deepEqual(statuses, [500, 503, 200]);
    // The script itself is not a request the platform received.
    assert.deepEqual(
      standin.received.map((r) => r.path),
      ['/events', '/events', '/events'],
    );
  });

  it('refuses a script that is not a list of statuses', async () => {
    assert.equal((await post(SCRIPT_PATH, { answers: [{ status: 42 }] })).status, 400);
    assert.equal((await post(SCRIPT_PATH, {})).status, 400);
    assert.equal((await post('/events', {})).status, 200);
  });
});
