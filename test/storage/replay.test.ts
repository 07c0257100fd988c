/**
 * Nothing lost: events that exhausted their delivery attempts while the warehouse was down
 * wait in the dead-letter backlog, and `eventbus replay --events-dead-letters` (the real
 * CLI, as a child process) stores them.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createBatchingWriter } from '../../adapters/bigquery-writer.ts';
import type { PullSource } from '../../cli/commands/backlog.ts';
import { eventDeadLetterBacklogs, replayEventDeadLetters } from '../../cli/commands/replay.ts';
import { plan } from '../../core/plan.ts';
import type { PubSubMessage } from '../../core/store/message.ts';
import { storeConfig } from '../../core/store/store.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { eventually, type StorageStack, startStorageStack, testSettings } from './support.ts';

const run = promisify(execFile);

/** A dead-lettered `search` event as the backlog hands it over (event_id = the message id). */
const deadLetter = (id: string): PubSubMessage => ({
  messageId: id,
  publishTime: '2026-01-01T00:00:00.000Z',
  attributes: { CloudPubSubDeadLetterSourceSubscription: 'events-store' },
  data: Buffer.from(JSON.stringify({ event_name: 'search', search_term: id, event_id: id })),
  subscription: 'events-store-dead-letter-backlog',
  deliveryAttempt: 5,
});

describe('storage: replay --events-dead-letters', function () {
  this.timeout(90_000);

  it('lists the store subscriptions’ dead-letter backlogs from plan()', () => {
    const p = plan(testSettings({ topics: ['backend_events'] }));
    assert.deepEqual(eventDeadLetterBacklogs(p), [
      'events-store-dead-letter-backlog',
      'backend_events-store-dead-letter-backlog',
    ]);
    assert.deepEqual(eventDeadLetterBacklogs(p, 'backend_events'), [
      'backend_events-store-dead-letter-backlog',
    ]);
  });

  it('acknowledges what was stored and leaves a batch the warehouse refused in the backlog, with the reason', async () => {
    const settings = testSettings();
    const queue = [deadLetter('m1'), deadLetter('m2')];
    const acked: string[] = [];
    const nacked: string[] = [];
    const source: PullSource = {
      async pull(_s, max) {
        return queue.splice(0, Math.min(1, max)).map((m) => ({ ackId: m.messageId, message: m }));
      },
      async ack(_s, ids) {
        acked.push(...ids);
      },
      async nack(_s, ids) {
        nacked.push(...ids);
      },
    };
    let calls = 0;
    const writer = createBatchingWriter(
      async () => {
        calls++;
        if (calls > 1) throw new Error('warehouse unavailable');
        return [];
      },
      { windowMs: 0 },
    );
    const [report] = await replayEventDeadLetters({
      source,
      writer,
      config: storeConfig(settings, plan(settings)),
      backlogs: ['events-store-dead-letter-backlog'],
    });
    assert.deepEqual(acked, ['m1']);
    assert.deepEqual(nacked, ['m2']);
    assert.equal(report?.stored, 1);
    assert.equal(report?.failed, 1);
    assert.match(report?.error ?? '', /warehouse unavailable/);
  });

  it('fans out what it stored before acknowledging, and leaves a batch whose fan-out failed in the backlog', async () => {
    const settings = testSettings();
    const queue = [deadLetter('f1'), deadLetter('f2')];
    const log: string[] = [];
    const source: PullSource = {
      async pull(_s, max) {
        return queue.splice(0, Math.min(1, max)).map((m) => ({ ackId: m.messageId, message: m }));
      },
      async ack(_s, ids) {
        log.push(...ids.map((i) => `ack ${i}`));
      },
      async nack(_s, ids) {
        log.push(...ids.map((i) => `nack ${i}`));
      },
    };
    const writer = createBatchingWriter(async () => [], { windowMs: 0 });
    const [report] = await replayEventDeadLetters({
      source,
      writer,
      config: storeConfig(settings, plan(settings)),
      backlogs: ['events-store-dead-letter-backlog'],
      afterStored: async (events) => {
        const ids = events.map((e) => e.event_id);
        log.push(`fan-out ${ids.join(',')}`);
        if (ids.includes('f2')) throw new Error('deliveries unavailable');
      },
    });
    assert.deepEqual(log, ['fan-out f1', 'ack f1', 'fan-out f2', 'nack f2']);
    assert.deepEqual([report?.stored, report?.failed], [1, 1]);
    assert.match(report?.error ?? '', /deliveries unavailable/);
  });

  describe('with both emulators and the store function', () => {
    let stack: StorageStack;
    before(async () => {
      stack = await startStorageStack(testSettings());
    });
    after(async () => {
      await stack?.close();
    });

    it('stores dead-lettered events once the warehouse is back', async () => {
      const ids = ['dl-1', 'dl-2'];
      await stack.stopBigQuery();
      try {
        for (const id of ids) {
          const event = { event_name: 'search', search_term: id, event_id: id };
          await stack.pubsub.topic('events').publishMessage({ data: Buffer.from(JSON.stringify(event)) });
        }
        // Five failed pushes (max_attempts in testSettings), then Pub/Sub moves them to the
        // dead-letter topic. Peek at the backlog over REST (pull, then nack at once).
        const sub = `http://${stack.pubsubHost}/v1/projects/${stack.settings.project}/subscriptions/events-store-dead-letter-backlog`;
        const post = (verb: string, body: unknown) =>
          fetch(`${sub}:${verb}`, {
            method: 'POST',
            body: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          });
        await eventually(
          async () => {
            const pulled = (await (await post('pull', { maxMessages: 10 })).json()) as {
              receivedMessages?: { ackId: string }[];
            };
            const ackIds = (pulled.receivedMessages ?? []).map((m) => m.ackId);
            if (ackIds.length > 0) await post('modifyAckDeadline', { ackIds, ackDeadlineSeconds: 0 });
            return ackIds.length === ids.length ? true : undefined;
          },
          40_000,
          'both events in the dead-letter backlog',
        );
      } finally {
        await stack.startBigQuery();
      }
      const settingsFile = join(tmpdir(), `eventbus-replay-${process.pid}.json`);
      writeFileSync(settingsFile, JSON.stringify(stack.settings));
      const { stdout } = await run(
        process.execPath,
        [
          join(REPO_ROOT, 'cli/main.ts'),
          'replay',
          '--events-dead-letters',
          '--env',
          settingsFile,
          '--format',
          'json',
        ],
        { env: { ...process.env, ...stack.env }, timeout: 60_000 },
      );
      const reports = JSON.parse(stdout) as { subscription: string; stored: number; failed: number }[];
      assert.deepEqual(
        reports.map((r) => [r.subscription, r.stored, r.failed]),
        [['events-store-dead-letter-backlog', 2, 0]],
      );
      const rows = await stack.query(
        `SELECT event_id, topic FROM events_dedup WHERE event_id IN ('dl-1', 'dl-2') ORDER BY event_id`,
      );
      assert.deepEqual(rows, [
        { event_id: 'dl-1', topic: 'events' },
        { event_id: 'dl-2', topic: 'events' },
      ]);
      // Everything stored was acknowledged: the backlog is empty.
      const left = await fetch(
        `http://${stack.pubsubHost}/v1/projects/${stack.settings.project}/subscriptions/events-store-dead-letter-backlog:pull`,
        {
          method: 'POST',
          // At once: Pub/Sub (and the emulator) may hold an empty pull without it.
          body: JSON.stringify({ maxMessages: 10, returnImmediately: true }),
          headers: { 'content-type': 'application/json' },
        },
      );
      assert.deepEqual(((await left.json()) as { receivedMessages?: unknown[] }).receivedMessages ?? [], []);
    });
  });
});
