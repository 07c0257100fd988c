/**
 * Alerts end to end on the local environment (`eventbus start`), as a user sets one up: the
 * settings name a chat connection (the local receiver's chat stand-in); an Alert on Meta's failure
 * rate is applied through the studio's admin API; `eventbus alert test` sends a test message. Then
 * the Meta stand-in is made to fail (its scripted answers, `/_standin/fail-next`) while events are
 * sent: the alert fires once at the chat stand-in; once Meta answers again it resolves once, and
 * `alert_states` holds one `fired` and one `resolved` evaluation.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { run as cli } from '../../cli/main.ts';
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
        writeFileSync(settingsFile, base + SETTINGS);
        return settingsFile;
      },
      // The alert's slots are dispatched by the first tick after each minute.
      env: { EVENTBUS_TICK_SECONDS: '2' },
    });
  });

  after(() => stopLocal(local?.child, dataDir()));

  const receiver = () => url('receiver');
  const chats = async (): Promise<string[]> => {
    const r = (await (await fetch(`${receiver()}/received.json`)).json()) as {
      received: { destination: string; body: { text?: string } }[];
    };
    return r.received
      .filter((x) => x.destination === 'ops-chat' && x.body.text?.includes('meta-failing'))
      .map((x) => x.body.text as string)
      .reverse();
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

  it('applies the alert and `eventbus alert test` sends a test message through its connection', async () => {
    const admin = readFileSync(join(dataDir(), 'admin-token'), 'utf8').trim();
    const applied = await fetch(`${url('studio')}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents: [ALERT] }),
    });
    assert.equal(applied.status, 200, await applied.clone().text());
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
    const scripted = await fetch(`${receiver()}/meta/_standin/fail-next`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        answers: Array.from({ length: 8 }, () => ({ status: 500, body: { error: { message: 'down' } } })),
      }),
    });
    assert.equal(scripted.status, 204, await scripted.clone().text());
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
