/**
 * The one end-to-end run of the whole local environment, exactly as a newcomer gets it:
 * `eventbus start` (what `npm start` runs) as a child process on free ports, the
 * development token it writes, curl-like POSTs to the gateway, the real BigQuery client
 * reading the warehouse, the local receiver's list of what each destination got, and a
 * clean stop on SIGINT with no process left behind.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BigQuery } from '@google-cloud/bigquery';
import { Storage } from '@google-cloud/storage';
import {
  CLAIM_COLLECTIONS,
  CLAIM_EXPIRE_FIELD,
  claimsDatabaseId,
  registryBucketName,
} from '../../core/plan.ts';
import { indexPath } from '../../core/registry/registry.ts';
import { REPO, startLocalCli } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('end to end: the local environment of `npm start`', function () {
  this.timeout(120000);
  let child: ChildProcess | undefined;
  let dataDir = '';
  let output = '';
  const ports: Record<string, number> = {};
  let bigquery: BigQuery;
  let token = '';
  let gateway = '';

  before(async () => {
    const local = await startLocalCli({ prefix: 'eventbus-e2e-' });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    output = local.output();
    token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
    gateway = `http://127.0.0.1:${ports['gateway']}`;
    bigquery = new BigQuery({
      projectId: 'local-project',
      apiEndpoint: `http://127.0.0.1:${ports['bigquery']}`,
    });
  });

  after(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  const query = async <T>(sql: string): Promise<T[]> => {
    const [rows] = await bigquery.query({ query: sql });
    return rows as T[];
  };

  const runId = `e2e${Date.now().toString(36)}`;
  const viewed = {
    event_id: `${runId}-1`,
    content_name: 'Red Shoe',
    content_type: 'product',
    content_id: 'SKU1',
    value: 49.9,
    currency: 'EUR',
    user_id: 'u-e2e',
    anonymous_id: `a-${runId}`,
    user: { email: 'John_Smith@gmail.com', country: 'us' },
    page: { url: 'https://shop.example/p/1' },
    // A backend forwarding a page's event sends its visitor's user agent: the gateway fills none
    // for a token (docs/gateway.md, "Who sent an event"), and Meta needs one for a website event.
    device: { user_agent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36' },
    consent: { analytics: 'granted', ads: 'granted', ad_user_data: 'granted' },
  };

  it('prints every service and the development token, and the gateway answers /health', async () => {
    for (const name of Object.keys(ports)) {
      const line = new RegExp(`${name}\\s+http://127\\.0\\.0\\.1:${ports[name]}`);
      // forward-catalog runs only when the settings have a catalogue (segment_action) destination.
      if (name === 'forward-catalog') assert.doesNotMatch(output, line);
      else assert.match(output, line);
    }
    const health = await fetch(`${gateway}/health`);
    assert.equal(health.status, 200);
  });

  it("creates the plan's registry bucket in the Cloud Storage emulator, which Google's client uses", async () => {
    const storage = new Storage({
      projectId: 'local-project',
      apiEndpoint: `http://127.0.0.1:${ports['storage']}`,
    });
    const bucket = storage.bucket(registryBucketName('local-project', 'local'));
    const [meta] = await bucket.getMetadata();
    assert.equal(meta.location, 'EU');
    await bucket
      .file('probe/hello.json')
      .save('{"hello":"registry"}', { preconditionOpts: { ifGenerationMatch: 0 } });
    const [back] = await bucket.file('probe/hello.json').download();
    assert.deepEqual(JSON.parse(back.toString()), { hello: 'registry' });
  });

  it('creates the claims database with its TTL fields in the Firestore emulator', async () => {
    const db = `http://127.0.0.1:${ports['firestore']}/v1/projects/local-project/databases/${claimsDatabaseId('local')}`;
    const got = (await (await fetch(db)).json()) as { type?: string; locationId?: string };
    assert.equal(got.type, 'FIRESTORE_NATIVE');
    for (const group of CLAIM_COLLECTIONS) {
      const field = await (
        await fetch(`${db}/collectionGroups/${group}/fields/${CLAIM_EXPIRE_FIELD}`)
      ).json();
      assert.deepEqual((field as { ttlConfig?: unknown }).ttlConfig, { state: 'ACTIVE' }, group);
    }
  });

  it('runs the studio on that registry, with the admin token it keeps in the data dir', async () => {
    const studio = `http://127.0.0.1:${ports['studio']}`;
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const doc = { kind: 'Query', name: 'daily_purchases', spec: { sql: 'SELECT 1' } };
    const applied = await fetch(`${studio}/v1/admin/apply`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ documents: [doc] }),
    });
    assert.equal(applied.status, 200, await applied.clone().text());
    const listed = (await (await fetch(`${studio}/v1/admin/resources/Query`, { headers })).json()) as {
      resources: { name: string; version: string }[];
    };
    assert.deepEqual(
      listed.resources.map((r) => [r.name, r.version]),
      [['daily_purchases', '1.0']],
    );
  });

  it('stores a POSTed view_content first, then delivers it to every permitted destination', async () => {
    const res = await post('/v1/topics/view_content', viewed);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { messageIds: string[] };
    assert.equal(body.messageIds.length, 1);

    const stored = await until('the row in view_content', async () => {
      const rows = await query<{ content_name: string; value: number; user_id: string }>(
        `SELECT content_name, value, user_id FROM \`local-project.events.view_content\` WHERE event_id = '${viewed.event_id}'`,
      );
      return rows.length > 0 ? rows : undefined;
    });
    assert.deepEqual(stored, [{ content_name: 'Red Shoe', value: 49.9, user_id: 'u-e2e' }]);

    const ledger = await until('a delivered row for each destination', async () => {
      const rows = await query<{
        destination: string;
        status: string;
        platform_ref: string | null;
        platform_events_received: number | null;
      }>(
        `SELECT destination, status, platform_ref, platform_events_received FROM \`local-project.events.deliveries\` WHERE event_id = '${viewed.event_id}' AND status = 'delivered' ORDER BY destination`,
      );
      return rows.length >= 4 ? rows : undefined;
    });
    assert.deepEqual(
      ledger.map((r) => r.destination),
      ['ga4', 'meta', 'tiktok', 'webhook'],
    );
    // What Meta's stand-in answered (`events_received`, `fbtrace_id`) is in the ledger's platform columns.
    const metaRow = ledger.find((r) => r.destination === 'meta');
    assert.deepEqual([metaRow?.platform_ref, Number(metaRow?.platform_events_received)], ['AbCdEfGh123', 1]);

    const received = await until('the receiver listing all four', async () => {
      const res = await fetch(`http://127.0.0.1:${ports['receiver']}/received.json`);
      const list = (await res.json()) as {
        received: { destination: string; eventId?: string; body: unknown }[];
      };
      // GA4's Measurement Protocol has no event id: its request is recognised by client_id.
      const mine = list.received.filter((r) => {
        const text = JSON.stringify(r.body);
        return text.includes(viewed.event_id) || text.includes(`"client_id":"${viewed.anonymous_id}"`);
      });
      return new Set(mine.map((r) => r.destination)).size >= 4 ? mine : undefined;
    });
    const webhook = received.find((r) => r.destination === 'webhook');
    assert.ok(webhook, 'the webhook got the event');
    // Meta got the email hashed per its rules, never in clear.
    const meta = JSON.stringify(received.find((r) => r.destination === 'meta')?.body);
    assert.ok(meta.includes('62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f'));
    assert.ok(!meta.includes('John_Smith'));
  });

  it('skips destinations whose consent is missing, with a ledger row saying why', async () => {
    const event = { ...viewed, event_id: `${runId}-2`, consent: { analytics: 'granted' } };
    assert.equal((await post('/v1/topics/view_content', event)).status, 200);
    const rows = await until('ledger rows for the second event', async () => {
      const r = await query<{ destination: string; status: string; reason: string | null }>(
        `SELECT destination, status, reason FROM \`local-project.events.deliveries\` WHERE event_id = '${event.event_id}' ORDER BY destination`,
      );
      return r.length >= 4 ? r : undefined;
    });
    const by = Object.fromEntries(rows.map((r) => [r.destination, r]));
    assert.equal(by['ga4']?.status, 'delivered');
    assert.equal(by['webhook']?.status, 'delivered');
    assert.equal(by['meta']?.status, 'skipped');
    assert.match(by['meta']?.reason ?? '', /consent/);
    assert.equal(by['tiktok']?.status, 'skipped');
  });

  it('accepts the native envelope form and keeps invalid events in invalid_events', async () => {
    const data = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');
    const res = await post('/v1/projects/local-project/topics/events:publish', {
      messages: [{ data: data({ ...viewed, event_name: 'view_content', event_id: `${runId}-3` }) }],
    });
    assert.equal(res.status, 200);
    // Straight to the Pub/Sub emulator's REST API, as a producer on pubsub.googleapis.com would:
    // the gateway is bypassed, so the store function is what catches the bad event.
    const bad = await fetch(
      `http://127.0.0.1:${ports['pubsub']}/v1/projects/local-project/topics/events:publish`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [
            { data: data({ event_name: 'view_content', event_id: `${runId}-bad`, content_name: 42 }) },
          ],
        }),
      },
    );
    assert.equal(bad.status, 200);
    await until('the native event in events_dedup', async () => {
      const r = await query(
        `SELECT event_id FROM \`local-project.events.events_dedup\` WHERE event_id = '${runId}-3'`,
      );
      return r.length === 1 ? r : undefined;
    });
    const invalid = await until('the invalid event', async () => {
      const r = await query<{ raw: string }>(
        `SELECT TO_JSON_STRING(errors) AS raw FROM \`local-project.events.invalid_events\` WHERE event_id = '${runId}-bad'`,
      );
      return r.length > 0 ? r : undefined;
    });
    assert.match(invalid[0]?.raw ?? '', /content_name/);
  });

  it('answers bad input with Google-style errors and keeps serving', async () => {
    const res = await fetch(`${gateway}/v1/topics/view_content`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"content_name": ',
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { status: string } };
    assert.equal(body.error.status, 'INVALID_ARGUMENT');
    const unauth = await post('/v1/topics/view_content', viewed, { authorization: 'Bearer nope' });
    assert.equal(unauth.status, 401);
    assert.equal((await fetch(`${gateway}/health`)).status, 200);
  });

  it('ticks the scheduler: the schedule function gets the supervisor’s tick and dispatches re-drive runs', async () => {
    const log = join(dataDir, 'logs', 'schedule.log');
    const tick = await until(
      'a tick in the schedule log',
      async () => {
        const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
        const found = lines.find((l) => l.includes('"message":"tick"'));
        return found ? (JSON.parse(found) as { scheduled: number; errors: string[] }) : undefined;
      },
      30000,
    );
    // environments/local.yaml's destinations each have a re-drive job.
    assert.ok(tick.scheduled >= 1, JSON.stringify(tick));
    assert.deepEqual(tick.errors, []);
  });

  it('enforces the grants pulumi up gives: tokens from `eventbus local token --as` are each workload', async () => {
    const tokenOf = (who: string) => {
      const r = spawnSync(
        process.execPath,
        [join(REPO, 'cli', 'main.ts'), 'local', 'token', '--as', who, '--data-dir', dataDir],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.trim();
    };
    const call = async (who: string, url: string, body?: unknown) => {
      const res = await fetch(url, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${tokenOf(who)}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, text: await res.text() };
    };
    const pubsub = `http://127.0.0.1:${ports['pubsub']}/v1/projects/local-project`;
    const bq = `http://127.0.0.1:${ports['bigquery']}/bigquery/v2/projects/local-project`;
    const message = {
      messages: [{ data: Buffer.from('{}').toString('base64'), attributes: { probe: 'iam' } }],
    };
    const studioPublish = await call('studio', `${pubsub}/topics/events:publish`, message);
    assert.equal(studioPublish.status, 403, studioPublish.text);
    assert.match(studioPublish.text, /PERMISSION_DENIED/);
    assert.match(studioPublish.text, /pubsub\.topics\.publish/);
    assert.equal((await call('gateway', `${pubsub}/topics/events:publish`, message)).status, 200);
    const row = { rows: [{ insertId: 'iam-probe', json: { error: 'probe' } }] };
    const forwardInsert = await call('forward', `${bq}/datasets/events/tables/events/insertAll`, row);
    assert.equal(forwardInsert.status, 403, forwardInsert.text);
    assert.match(forwardInsert.text, /bigquery\.tables\.updateData/);
    assert.notEqual(
      (await call('store', `${bq}/datasets/events/tables/hook_failures/insertAll`, row)).status,
      403,
    );
    const query = await call('store', `${bq}/queries`, { query: 'SELECT 1 AS one', useLegacySql: false });
    assert.equal(query.status, 200, query.text);
    const backlog = `${pubsub}/subscriptions/deliveries-webhook-dead-letter-backlog:pull`;
    assert.equal((await call('schedule', backlog, { maxMessages: 1, returnImmediately: true })).status, 200);
    assert.equal((await call('studio', backlog, { maxMessages: 1, returnImmediately: true })).status, 403);
    const alerts = await call(
      'schedule',
      `http://127.0.0.1:${ports['storage']}/storage/v1/b/${registryBucketName('local-project', 'local')}/o/${encodeURIComponent(indexPath('Alert'))}`,
    );
    assert.ok([200, 404].includes(alerts.status), alerts.text);
  });

  it('stops every process cleanly on Ctrl-C', async () => {
    const pids = [...output.matchAll(/ready on \S+ \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    assert.equal(pids.length, 11, 'five emulators, the receiver, three functions, the gateway, the studio');
    const exited = new Promise<number | null>((r) => child?.once('exit', (code) => r(code)));
    child?.kill('SIGINT');
    assert.equal(await exited, 0);
    await until('every child gone', async () => (pids.some(alive) ? undefined : true), 15000);
  });
});
