/**
 * A Customer Match sync end to end on the local environment (`eventbus start`, what `npm start`
 * runs): purchases sent to the gateway are stored, a `google_ads_audience` sync in mirror mode
 * over them is run with `eventbus sync run`, as a user would, and the receiver's Data Manager
 * stand-in (its credentials written by the supervisor, its tokens issued by the stand-in) holds
 * the list's members: added on the first run, kept on a re-run with nothing changed, and the
 * member whose row left the SQL result removed on the next.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import {
  eventbusIn,
  localBigQuery,
  localSecret,
  localSettingsWith,
  publishEvent,
  type StartedLocal,
  startLocalCli,
  stopLocalCli,
} from '../support/local-start.ts';
import { until } from '../support/until.ts';

const CONNECTION = `
connections:
  - id: ads-lists
    type: google_ads_audience
    url: http://127.0.0.1:8099/google-ads-lists
    secrets: { credentials: GOOGLE_ADS_LIST_CREDENTIALS }
`;
const LIST = '5550001';

describe('end to end: a Customer Match sync on the local environment (mirror)', function () {
  this.timeout(180_000);
  let local: StartedLocal;
  let settingsFile = '';
  let bigquery: BigQuery;
  const tag = `cm${Date.now().toString(36)}`;

  before(async () => {
    local = await startLocalCli({
      prefix: 'eventbus-customer-match-',
      settings: localSettingsWith('customer-match.yaml', CONNECTION),
      env: { EVENTBUS_TICK_SECONDS: '0' },
    });
    settingsFile = join(local.dataDir, 'customer-match.yaml');
    bigquery = await localBigQuery(local.ports);
  });
  after(() => stopLocalCli(local));

  const eventbus = (...argv: string[]) => eventbusIn(local.dataDir)(...argv);
  const buy = (n: number, user: string, value: number, email: string) =>
    publishEvent(local, 'purchase', {
      event_id: `${tag}-${n}`,
      transaction_id: `CM${n}`,
      value,
      currency: 'EUR',
      user_id: `${user}-${tag}`,
      user: { email },
    });
  const stored = (n: number) =>
    until(
      `${n} purchases of ${tag} stored`,
      async () => {
        const [rows] = await bigquery.query({
          query: `SELECT COUNT(*) AS n FROM events.events_dedup WHERE ENDS_WITH(user_id, '${tag}')`,
        });
        return Number((rows as { n: number }[])[0]?.n) === n ? true : undefined;
      },
      30_000,
    );
  /** The list as the stand-in holds it: the e-mail digests of its members. */
  const members = async (): Promise<string[]> => {
    const res = await fetch(
      `http://127.0.0.1:${local.ports['receiver']}/google-ads-lists/stand-in/lists/${LIST}`,
    );
    const body = (await res.json()) as { members: string[] };
    return body.members.map((m) => (JSON.parse(m) as { emailAddress: string }).emailAddress).sort();
  };
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  type RunRow = { status: string; rows_planned: number; rows_sent: number; rows_removed: number };
  const runSync = async (): Promise<RunRow> => {
    await eventbus('sync', 'run', 'vip-list', '--env', settingsFile, '--wait');
    const runs = JSON.parse(
      await eventbus('sync', 'runs', 'vip-list', '--env', settingsFile, '--format', 'json'),
    ) as RunRow[];
    const r = runs[0] as RunRow;
    return {
      ...r,
      rows_planned: Number(r.rows_planned),
      rows_sent: Number(r.rows_sent),
      rows_removed: Number(r.rows_removed),
    };
  };

  it('adds the members, keeps them on a re-run, and removes the one that left the SQL result', async () => {
    await buy(1, 'fay', 100, 'Fay@Example.com');
    await buy(2, 'gus', 200, 'gus@example.com');
    await stored(2);
    // The customers worth less than 1000 so far, from the typed purchase view, keyed by user.
    const destination = {
      google_ads_audience: {
        connection: 'ads-lists',
        operating_account_id: '123-456-7890',
        user_list_id: LIST,
        terms_of_service: 'accepted',
      },
    };
    const model = `SELECT user_id, ANY_VALUE(user.email) AS email FROM events.purchase
WHERE ENDS_WITH(user_id, '${tag}') GROUP BY user_id HAVING SUM(value) < 1000`;
    const sync = {
      kind: 'Sync',
      name: 'vip-list',
      spec: { destination, mode: 'mirror', primary_key: ['user_id'], schedule: { manual: true }, model },
    };
    const file = join(local.dataDir, 'vip-list.json');
    writeFileSync(file, JSON.stringify(sync));
    await eventbus('apply', '-f', file);

    const first = await runSync();
    assert.deepEqual([first.status, first.rows_sent, first.rows_removed], ['succeeded', 2, 0]);
    // Normalised by Google's rules before hashing (lower case), as the stand-in checks.
    assert.deepEqual(await members(), [sha('fay@example.com'), sha('gus@example.com')].sort());

    // Nothing changed in the warehouse: nothing is sent, and the list keeps both.
    const second = await runSync();
    assert.deepEqual([second.rows_planned, second.rows_sent, second.rows_removed], [0, 0, 0]);
    assert.deepEqual(await members(), [sha('fay@example.com'), sha('gus@example.com')].sort());

    // Gus leaves the model (his lifetime value passes 1000): removed by the e-mail he was added with.
    await buy(3, 'gus', 900, 'gus@example.com');
    await stored(3);
    const third = await runSync();
    assert.deepEqual([third.status, third.rows_sent, third.rows_removed], ['succeeded', 0, 1]);
    assert.deepEqual(await members(), [sha('fay@example.com')]);

    // Each run kept its requests' ids; Google's verdict on them is read with sync request-status.
    // The CLI reads the credentials from a file: the operator's copy of the secret's value.
    const credentials = join(local.dataDir, 'list-credentials.json');
    writeFileSync(credentials, await localSecret(local.ports, 'GOOGLE_ADS_LIST_CREDENTIALS'), {
      mode: 0o600,
    });
    const status = await eventbus(
      'sync',
      'request-status',
      'vip-list',
      '--env',
      settingsFile,
      '--credentials',
      credentials,
      '--origin',
      `http://127.0.0.1:${local.ports['receiver']}/google-ads-lists`,
    );
    assert.match(status, /^Sync\/vip-list@\S+: 1 request\(s\)\n\S+\n {2}5550001 SUCCESS\n$/);

    // Every call the stand-in took was valid: the accounts, the hashes, the terms on each upload.
    const received = (await (
      await fetch(`http://127.0.0.1:${local.ports['receiver']}/received.json`)
    ).json()) as {
      received: { destination: string; path: string; status: number; body: { termsOfService?: unknown } }[];
    };
    const calls = received.received.filter(
      (r) => r.destination === 'ads-lists' && r.path.includes('audienceMembers'),
    );
    assert.deepEqual(calls.map((c) => [c.path.replace(/^.*\/v1\//, ''), c.status]).reverse(), [
      ['audienceMembers:ingest', 200],
      ['audienceMembers:remove', 200],
    ]);
  });
});
