/**
 * An upgrade on a laptop (issue #101): settings from the previous release name a webhook
 * destination without `config.format`. `eventbus start` delivers to it in `eventbus-v2`, and after
 * Ctrl-C and `eventbus start` again on the same data dir and ports it still does: the local
 * webhook stand-in verifies each delivery as `eventbus-v2` (it would refuse any other format).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishEvent, type StartedLocal, startLocalCli, stopLocalCli } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const REPO = join(import.meta.dirname, '..', '..');
const NEW_FORM = 'config: { path: /webhook, format: standard-webhooks }';

/** environments/local.yaml as the previous release wrote it: the webhook without `format`. */
function previousRelease(dataDir: string): string {
  const current = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8');
  assert.ok(current.includes(NEW_FORM), 'local.yaml names the webhook format as this test expects');
  const file = join(dataDir, 'previous-release.yaml');
  writeFileSync(file, current.replace(NEW_FORM, 'config: { path: /webhook }'));
  return file;
}

describe('end to end: a webhook without format keeps eventbus-v2 across a restart', function () {
  this.timeout(300_000);
  let local: StartedLocal | undefined;
  const tag = `up${Date.now().toString(36)}`;
  after(() => (local ? stopLocalCli(local) : undefined));

  /** The stand-in's verdict on the delivery of one event to the `webhook` destination. */
  const delivered = (id: string) =>
    until(
      `${id} at the webhook`,
      async () => {
        const res = await fetch(`http://127.0.0.1:${local?.ports['receiver']}/received.json`);
        const list = (await res.json()) as {
          received: { destination: string; eventId?: string; verified: boolean | null; note?: string }[];
        };
        return list.received.find((r) => r.destination === 'webhook' && r.eventId === id);
      },
      60_000,
    );

  it('delivers in eventbus-v2 before and after the restart on the same data dir', async () => {
    local = await startLocalCli({ prefix: 'eventbus-upgrade-', settings: previousRelease });
    const send = (id: string) =>
      publishEvent(local as StartedLocal, 'view_content', {
        event_id: id,
        content_name: 'Boots',
        content_type: 'product',
        consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
      });
    await send(`${tag}-before`);
    const before = await delivered(`${tag}-before`);
    assert.equal(before.verified, true, JSON.stringify(before));
    assert.match(before.note ?? '', /eventbus-v2 signature verified/);

    // Ctrl-C, as a user would, keeping the data dir; then start again on it.
    const { child, dataDir, ports } = local;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    await gone;
    local = await startLocalCli({
      prefix: 'eventbus-upgrade-',
      settings: previousRelease,
      again: { dataDir, ports },
    });
    await send(`${tag}-after`);
    const after = await delivered(`${tag}-after`);
    assert.equal(after.verified, true, JSON.stringify(after));
    assert.match(after.note ?? '', /eventbus-v2 signature verified/);
  });
});
