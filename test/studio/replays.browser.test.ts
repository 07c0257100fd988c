/**
 * The console's replays page in Debian's Chromium: a person starts a dead-letter replay of a
 * destination; the page says it is queued, then follows it while the scheduler's Replay job runs
 * it chunk by chunk (driven here as the schedule function would, one runChunk per run message,
 * on the Pub/Sub emulator's real dead-letter backlog), and shows it finished with its figures.
 * Bad requests are answered field by field on the page; a hostile condition is shown as text; a
 * queued replay is cancelled from the page and shown so once the scheduler stops it.
 * Screenshots go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PubSub } from '@google-cloud/pubsub';
import { pubSubPullSource } from '../../adapters/backlog.ts';
import { createDeliveriesPublisher, deliveriesRoute } from '../../adapters/deliveries-publisher.ts';
import { LockStore } from '../../adapters/locks.ts';
import { ReplayStore } from '../../adapters/replays.ts';
import {
  backlogSubscriptionName,
  deadLetterTopicName,
  deliveriesTopicName,
  forwardSubscriptionName,
} from '../../core/plan.ts';
import type { RunMessage } from '../../core/scheduler/dispatch.ts';
import { type PubSubEmulator, startPubSubEmulator } from '../../emulators/pubsub/server.ts';
import { replayJob } from '../../functions/schedule/replays.ts';
import { type RunnerDeps, runChunk } from '../../functions/schedule/runner.ts';
import { emulatorPubSub } from '../../local/provision.ts';
import { testSettings } from '../delivery/support/stack.ts';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'replays-page-admin-token-0123456789';
const PROJECT = 'replays-page';
const HOSTILE = `event_name = '<img src=x onerror="window.__xss=1">'`;

describe('studio replays page in a browser', function () {
  this.timeout(90_000);
  const settings = testSettings();
  const published: RunMessage[] = [];
  let dir = '';
  let emulator: PubSubEmulator;
  let pubsub: PubSub;
  const deadLetters = deadLetterTopicName(forwardSubscriptionName('hook'));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-replays-page-'));
    emulator = await startPubSubEmulator({ port: 0, dataDir: dir, fsync: 'none' });
    pubsub = emulatorPubSub(PROJECT, `127.0.0.1:${emulator.port}`);
    const [dl] = await pubsub.createTopic(deadLetters);
    await dl.createSubscription(backlogSubscriptionName(deadLetters));
    const [deliveries] = await pubsub.createTopic(deliveriesTopicName('hook', 'per_destination'));
    await deliveries.createSubscription('deliveries-watch');
  });
  after(async () => {
    await pubsub?.close();
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ui = studioInBrowser('replays-page', {
    adminToken: TOKEN,
    adminName: 'ana@acme.example',
    settings,
    runs: {
      start: async (m) => {
        published.push(m);
      },
    },
  });

  it('starts a dead-letter replay, follows it chunk by chunk and shows it finished', async () => {
    const dl = pubsub.topic(deadLetters);
    for (let i = 1; i <= 5; i++)
      await dl.publishMessage({
        data: Buffer.from(JSON.stringify({ event_id: `dl-${i}`, event_name: 'purchase' })),
        attributes: { destination: 'hook', event_id: `dl-${i}`, event_name: 'purchase' },
      });
    const deliveries = createDeliveriesPublisher(pubsub, deliveriesRoute('per_destination'));
    const source = await pubSubPullSource(pubsub, PROJECT);
    const store = new ReplayStore(ui.bucket());
    const deps: RunnerDeps = {
      locks: new LockStore(ui.bucket()),
      leaseMs: 60_000,
      publish: async (runs) => {
        published.push(...runs);
      },
      jobs: [
        replayJob({
          settings,
          project: PROJECT,
          dataset: 'events',
          ops: 'eventbus_ops',
          pending: (now) => store.pending(now),
          read: (id) => store.read(id),
          finish: (r) => store.write(r),
          source: async () => source,
          publish: (m) => deliveries.publish(m),
          writeLedger: async () => undefined,
          assertSelect: async () => undefined,
          run: async () => [],
          page: async () => [],
          createSlice: async () => {},
          chunkSize: 2,
        }),
      ],
    };

    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/replays#token=${TOKEN}`);
    await page.getByText('No replay yet.').waitFor();
    assert.equal(await page.getByLabel('Destination').inputValue(), 'hook');
    assert.equal(await page.getByRole('link', { name: 'Replays' }).getAttribute('aria-current'), 'page');

    // A bad limit is refused, naming the field; nothing is started.
    await page.getByLabel('At most').fill('lots');
    await page.getByRole('button', { name: 'Start the replay' }).click();
    await page.getByText('limit: must be a whole number').waitFor();
    assert.equal(published.length, 0);

    await page.getByLabel('At most').fill('');
    await page.getByRole('button', { name: 'Start the replay' }).click();
    await page.getByText(/Replay .* started: dead letters to hook\./).waitFor();
    const row = page.getByRole('table', { name: 'Replays' }).locator('tbody tr').first();
    await row.getByText('waiting for the scheduler').waitFor();
    assert.match((await row.textContent()) ?? '', /hookdead lettersana@acme\.examplequeued/);
    assert.deepEqual(
      published.map((m) => m.kind),
      ['Replay'],
    );

    // The scheduler takes it: one chunk (two messages), and the page, polling, shows how far.
    assert.equal((await runChunk(deps, published.shift() as RunMessage)).outcome, 'continued');
    await row.getByText('2 read, 2 sent again, 0 skipped, 0 failed').waitFor();
    assert.match((await row.textContent()) ?? '', /running/);
    await page.screenshot({ path: join(ui.shots, 'replays-running.png'), fullPage: true });
    while (published.length > 0) await runChunk(deps, published.shift() as RunMessage);
    await row.getByText('5 read, 5 sent again, 0 skipped, 0 failed').waitFor();
    assert.match((await row.textContent()) ?? '', /finished/);

    // Each dead letter went back on the destination's deliveries topic, marked replay.
    const messages = await source.pull('deliveries-watch', 10);
    assert.deepEqual(messages.map((m) => m.message.attributes['event_id']).sort(), [
      'dl-1',
      'dl-2',
      'dl-3',
      'dl-4',
      'dl-5',
    ]);
    assert.ok(messages.every((m) => m.message.attributes['replay'] === 'true'));

    // A slice: the times are checked, and a hostile condition is kept as text.
    await page.getByLabel('stored events of a period').check();
    await page.getByLabel('From').fill('');
    await page.getByRole('button', { name: 'Start the replay' }).click();
    await page.getByText(/from: must be a time/).waitFor();
    await page.getByLabel('From').fill('2026-11-01T00:00');
    await page.getByLabel('to (not included)').fill('2026-11-02T00:00');
    await page.getByLabel('Only events where').fill(HOSTILE);
    await page.getByRole('button', { name: 'Start the replay' }).click();
    await page.getByText(/Replay .* started: stored events/).waitFor();
    await page.getByRole('table', { name: 'Replays' }).getByText(HOSTILE, { exact: false }).waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.equal(await page.locator('img').count(), 0);

    // The queued slice is cancelled from the page: the scheduler stops it before its first chunk.
    const slice = page.getByRole('table', { name: 'Replays' }).locator('tbody tr').first();
    await slice.getByRole('button', { name: /^cancel replay / }).click();
    await slice.getByText('cancelling (asked by ana@acme.example)').waitFor();
    assert.equal(await slice.getByRole('button', { name: /^cancel replay / }).count(), 0);
    while (published.length > 0) await runChunk(deps, published.shift() as RunMessage);
    await slice.getByRole('cell', { name: 'cancelled', exact: true }).waitFor();
    assert.match((await slice.textContent()) ?? '', /0 read, 0 sent again, 0 skipped, 0 failed, cancelled/);
    await page.screenshot({ path: join(ui.shots, 'replays.png'), fullPage: true });

    // Narrow window: the form and the list stay usable.
    await page.setViewportSize({ width: 420, height: 900 });
    await page.screenshot({ path: join(ui.shots, 'replays-narrow.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await source.close();
    await deliveries.close();
  });

  it('goes by keyboard alone: the fields are labelled and reachable', async () => {
    const page = await ui.browser().newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${ui.studio().url}/replays#token=${TOKEN}`);
    await page.getByText('No replay yet.').waitFor();
    await page.getByLabel('Destination').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('ArrowRight'); // the radio group: to "stored events of a period"
    assert.equal(await page.getByLabel('stored events of a period').isChecked(), true);
    assert.equal(await page.getByLabel('Only events where').isVisible(), true);
    assert.equal(await page.getByLabel('At most').isVisible(), false);
    await page.getByLabel('Only events where').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'start');
    await page.keyboard.press('Enter');
    await page.getByText(/Replay .* started: stored events/).waitFor();
  });
});
