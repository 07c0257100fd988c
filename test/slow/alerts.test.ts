/**
 * Alerts end to end on the local environment (`eventbus start`), as a user sets one up: the
 * settings name a chat connection (the local receiver's chat stand-in); an Alert on Meta's failure
 * rate is applied through the studio's admin API; `eventbus alert test` sends a test message. Then
 * the Meta stand-in is made to fail (its scripted answers, `/_standin/fail-next`) while events are
 * sent: the alert fires once at the chat stand-in; once Meta answers again it resolves once, and
 * `alert_states` holds one `fired` and one `resolved` evaluation.
 *
 * Went quiet: two more destinations, `quiet` (a TikTok stand-in of its own, sent view_content) and
 * `idle` (a webhook the settings let only `lead` events reach, so it has nothing to send), each
 * delivered 25 events in the same hour a week ago: those ledger rows are made by the ledger's own
 * row builder and written by forward's ledger writer with a clock a week back (the alert reads
 * only the ledger for that hour). Then `quiet`'s stand-in stops answering while view_content
 * events are stored: its went_quiet alert fires; `idle`'s is judged (its baseline is there) and
 * stays clear, with no stored event for it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../../adapters/ledger-writer.ts';
import { run as cli } from '../../cli/main.ts';
import { attemptEntry } from '../../core/delivery/ledger.ts';
import { META_FAILING as ALERT } from '../support/alert-fixture.ts';
import {
  postViewContent,
  REPO,
  type StartedLocal,
  startLocalCli,
  stopLocal,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

const SETTINGS = `
connections:
  - id: ops-chat
    type: chat
    url: http://127.0.0.1:8099/chat/ops
`;

/** The two destinations the went-quiet alerts watch, added to local.yaml's. */
const QUIET_DESTINATIONS = `destinations:
  - id: quiet
    type: tiktok_events
    base_url: http://127.0.0.1:8099/quiet
    config: { pixel_code: CLOCAL0123456789AB }
    secrets: { access_token: TIKTOK_ACCESS_TOKEN }
    events: { allow: [view_content] }
  - id: idle
    type: webhook
    base_url: http://127.0.0.1:8099
    config: { path: /idle, format: standard-webhooks }
    secrets: { signing_key: WEBHOOK_SIGNING_KEY }
    events: { allow: [lead] }
`;

/** A went_quiet alert on a destination, evaluated each minute. */
const wentQuiet = (destination: string) => ({
  kind: 'Alert' as const,
  name: `${destination}-went-quiet`,
  description: `Tell ops when ${destination} delivers nothing while it has events to send`,
  spec: {
    condition: { went_quiet: { destination, min_baseline: 20 } },
    schedule: { every: '1m' },
    notify: { connection: 'ops-chat' },
  },
});

/** Deliveries each destination made in the same hour a week ago. */
const BASELINE = 25;

describe('end to end: an alert fires once when a destination fails, and resolves once', function () {
  this.timeout(600_000);
  let local: StartedLocal | undefined;
  let settingsFile = '';
  const dataDir = () => local?.dataDir ?? '';
  const url = (service: string) => `http://127.0.0.1:${local?.ports[service]}`;

  before(async () => {
    local = await startLocalCli({
      prefix: 'eventbus-alerts-',
      settings: (dir) => {
        settingsFile = join(dir, 'alerts.yaml');
        const base = readFileSync(join(REPO, 'environments', 'local.yaml'), 'utf8');
        assert.equal(base.split('\ndestinations:\n').length, 2);
        writeFileSync(settingsFile, base.replace('destinations:\n', QUIET_DESTINATIONS) + SETTINGS);
        return settingsFile;
      },
      // The alert's slots are dispatched by the first tick after each minute.
      env: { EVENTBUS_TICK_SECONDS: '2' },
    });
  });

  after(() => stopLocal(local?.child, dataDir()));

  const receiver = () => url('receiver');
  /** The chat messages of an alert, oldest first. */
  const chats = async (alert = 'meta-failing'): Promise<string[]> => {
    const r = (await (await fetch(`${receiver()}/received.json`)).json()) as {
      received: { destination: string; body: { text?: string } }[];
    };
    return r.received
      .filter((x) => x.destination === 'ops-chat' && x.body.text?.includes(` ${alert}: `))
      .map((x) => x.body.text as string)
      .reverse();
  };
  /** The stand-in under `prefix` answers 500 to its next `count` requests. */
  const failNext = async (prefix: string, count: number) => {
    const scripted = await fetch(`${receiver()}/${prefix}/_standin/fail-next`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        answers: Array.from({ length: count }, () => ({ status: 500, body: { error: { message: 'down' } } })),
      }),
    });
    assert.equal(scripted.status, 204, await scripted.clone().text());
  };
  const adminApply = async (documents: readonly unknown[]) => {
    const admin = readFileSync(join(dataDir(), 'admin-token'), 'utf8').trim();
    const applied = await fetch(`${url('studio')}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents }),
    });
    assert.equal(applied.status, 200, await applied.clone().text());
  };
  const chatsMatching = (re: RegExp, want: number, ms: number) =>
    until(
      `${want} chat message(s) matching ${re}`,
      async () => {
        const mine = (await chats()).filter((t) => re.test(t));
        return mine.length >= want ? mine : undefined;
      },
      ms,
    );
  const send = async (id: string) => {
    const res = await postViewContent(url('gateway'), dataDir(), id);
    assert.equal(res.status, 200, await res.clone().text());
  };

  it('went quiet: fires for a destination whose stand-in stops answering, not for one with nothing to send', async () => {
    const bigquery = new BigQuery({ projectId: 'local-project', apiEndpoint: url('bigquery') });
    // Last week's deliveries, ten minutes into the hour the alerts compare with.
    const weekAgo = new Date(Date.now() - 7 * 86_400_000 - 10 * 60_000);
    const ledger = createLedgerWriter(createLedgerBigQueryWriter(bigquery, 'events'));
    const refused = await ledger.write(
      ['quiet', 'idle'].flatMap((destination) =>
        Array.from({ length: BASELINE }, (_, i) =>
          attemptEntry({
            event_id: `week-${destination}-${i}`,
            event_name: destination === 'idle' ? 'lead' : 'view_content',
            payload_digest: `week-digest-${i}`,
            destination,
            status: 'delivered',
            attempt: 1,
            httpStatus: 200,
            replay: false,
            messageId: `week-${destination}-${i}`,
            now: weekAgo,
          }),
        ),
      ),
    );
    assert.deepEqual(refused, []);
    // quiet's stand-in stops answering: every attempt gets a 500 (the breaker then holds the rest).
    await failNext('quiet', 300);
    const run = Date.now().toString(36);
    for (let i = 0; i < 5; i++) await send(`quiet-${run}-${i}`);
    await adminApply([wentQuiet('quiet'), wentQuiet('idle')]);
    const fired = await until(
      'a FIRING message for quiet-went-quiet',
      async () => (await chats('quiet-went-quiet')).find((t) => /FIRING/.test(t)),
      240_000,
    );
    const m =
      /^\[eventbus alert\] FIRING quiet-went-quiet: quiet delivered 0 events in the last hour against 25 the same hour last week, with (\d+) stored events for it$/.exec(
        fired,
      );
    assert.ok(m, fired);
    assert.ok(Number(m[1]) >= 5, fired);
    // idle was judged in the same minutes (a baseline of 25), found nothing to send, and stayed clear.
    const idle = await until(
      'an evaluation of idle-went-quiet',
      async () => {
        const [rows] = await bigquery.query({
          query:
            "SELECT breached, summary, notice FROM eventbus_ops.alert_states WHERE alert = 'idle-went-quiet' ORDER BY evaluated_at",
        });
        return rows.length > 0
          ? (rows as { breached: boolean; summary: string; notice: string | null }[])
          : undefined;
      },
      120_000,
    );
    for (const r of idle) {
      assert.equal(r.breached, false, r.summary);
      assert.equal(r.notice, null);
      assert.equal(
        r.summary,
        'idle delivered 0 events in the last hour against 25 the same hour last week, with 0 stored events for it',
      );
    }
    assert.deepEqual(await chats('idle-went-quiet'), []);
  });

  it('applies the alert and `eventbus alert test` sends a test message through its connection', async () => {
    await adminApply([ALERT]);
    let out = '';
    let err = '';
    const code = await cli(
      ['alert', 'test', 'meta-failing', '--env', settingsFile, '--data-dir', dataDir()],
      {
        out: (t) => (out += t),
        err: (t) => (err += t),
      },
    );
    assert.equal(code, 0, err);
    assert.match(out, /^started Alert\/meta-failing@\S+ \(Alert\/meta-failing 1\.0\)/);
    const [test] = await chatsMatching(/TEST/, 1, 90_000);
    assert.match(
      test ?? '',
      /^\[eventbus alert\] TEST \(nothing is wrong.*\) meta-failing: meta failed \d+ of \d+ attempts/,
    );
  });

  it('fires once while Meta fails, and resolves once after it answers again', async () => {
    // Meta answers 500 to the next attempts: every event fails a few times before it is delivered.
    await failNext('meta', 8);
    const run = Date.now().toString(36);
    for (let i = 0; i < 3; i++) await send(`alert-${run}-${i}`);
    const [fired] = await chatsMatching(/FIRING/, 1, 240_000);
    assert.match(
      fired ?? '',
      /^\[eventbus alert\] FIRING meta-failing: meta failed \d+ of \d+ attempts \(\d+(\.\d)?%\) in the last 1m; the threshold is 50%$/,
    );
    // Healthy traffic while it clears.
    await send(`alert-${run}-ok1`);
    await chatsMatching(/RESOLVED/, 1, 300_000);
    // One more evaluation's time for a stray second notice to show up, then count.
    await new Promise((r) => setTimeout(r, 65_000));
    const all = await chats();
    assert.equal(all.filter((t) => /FIRING/.test(t)).length, 1, all.join('\n'));
    assert.equal(all.filter((t) => /RESOLVED/.test(t)).length, 1, all.join('\n'));
    const bigquery = new BigQuery({ projectId: 'local-project', apiEndpoint: url('bigquery') });
    const [rows] = await bigquery.query({
      query:
        "SELECT notice, incident FROM eventbus_ops.alert_states WHERE alert = 'meta-failing' AND notice IS NOT NULL ORDER BY evaluated_at",
    });
    const notices = rows as { notice: string; incident: string }[];
    assert.deepEqual(
      notices.map((r) => r.notice),
      ['fired', 'resolved'],
    );
    assert.equal(notices[0]?.incident, notices[1]?.incident, 'one incident, fired and resolved');
  });
});
