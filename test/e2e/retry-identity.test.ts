/**
 * A producer's retry is one event (#56), through the running local environment (`eventbus start`):
 * the same body with an `event_id` and no `event_time`, sent three times — on `/v1/topics/events`
 * from one address, on the `:publish` form from another address to a second gateway process, and
 * once more on the first — is one row in `events` and in `events_dedup`, one delivery per
 * destination, and no `event_id_conflicts` row. The same through a form-post translator without
 * a time or a key of its own (its id comes from the body's digest). The same event_id with other
 * content stays two events and one conflict row.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { freePort } from '../../local/ports.ts';
import { runtimeEnv } from '../../local/services.ts';
import { eventbusIn, localBigQuery, REPO, startLocalCli, stopLocal } from '../support/local-start.ts';
import { until } from '../support/until.ts';

const TRANSLATOR = `
kind: Translator
name: callback-form
description: A call-back form's webhook (a form post, no time, no id).
spec:
  event: lead
  format: { type: form }
  fields:
    - { target: user.phone, source: phone }
    - { target: anonymous_id, source: visitor }
    - { target: form_name, source: form }
    - { target: consent.ads, value: granted }
    - { target: consent.ad_user_data, value: granted }
    - { target: consent.analytics, value: granted }
`;

/** The page a write key of these tests is bound to. */
const KEY_ORIGIN = 'http://127.0.0.1:8080';

/**
 * POST from a chosen loopback address, so the gateway sees another client, with a project token
 * or a write key (`ebk_…`, from KEY_ORIGIN: a browser, whose address the gateway fills in).
 */
function postFrom(
  from: string,
  url: string,
  credential: string,
  body: string,
  type = 'application/json',
): Promise<{ status: number; text: string }> {
  const auth: Record<string, string> = credential.startsWith('ebk_')
    ? { 'x-write-key': credential, origin: KEY_ORIGIN }
    : { authorization: `Bearer ${credential}` };
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { ...auth, 'content-type': type, 'user-agent': `retrier/${from}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('end to end: a producer’s retry is one event', function () {
  this.timeout(240_000);
  let child: ChildProcess | undefined;
  let second: ChildProcess | undefined;
  let dataDir = '';
  const ports: Record<string, number> = {};
  let secondPort = 0;
  let bigquery: BigQuery;
  const run = Date.now().toString(36);
  const token = () => readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
  const gatewayUrl = (port: number) => `http://127.0.0.1:${port}`;
  const query = async <T>(sql: string, params: Record<string, unknown> = {}): Promise<T[]> =>
    (await bigquery.query({ query: sql, params }))[0] as T[];
  const counts = async (id: string) => {
    const [events] = await query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM events.events WHERE event_id = @id',
      {
        id,
      },
    );
    const [dedup] = await query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM events.events_dedup WHERE event_id = @id',
      { id },
    );
    const [conflicts] = await query<{ n: number }>(
      'SELECT COUNT(*) AS n FROM events.event_id_conflicts WHERE event_id = @id',
      { id },
    );
    return { events: Number(events?.n), dedup: Number(dedup?.n), conflicts: Number(conflicts?.n) };
  };
  /** Delivered ledger rows per destination for an event id. */
  const delivered = async (id: string) =>
    Object.fromEntries(
      (
        await query<{ destination: string; n: number }>(
          `SELECT destination, COUNT(*) AS n FROM events.deliveries
           WHERE event_id = @id AND status = 'delivered' AND NOT replay GROUP BY destination`,
          { id },
        )
      ).map((r) => [r.destination, Number(r.n)]),
    );

  before(async () => {
    const local = await startLocalCli({ prefix: 'eventbus-retry-' });
    ({ child, dataDir } = local);
    Object.assign(ports, local.ports);
    bigquery = await localBigQuery(ports);
    // A second gateway process on the same bus and registry, as a second Cloud Run instance.
    secondPort = await freePort();
    const settings = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8'));
    const env = runtimeEnv({
      root: REPO,
      dataDir,
      logDir: join(dataDir, 'logs'),
      ports: ports as never,
      settings,
      project: settings.project,
      node: process.execPath,
    });
    second = spawn(process.execPath, [join(REPO, 'gateway', 'main.ts')], {
      cwd: REPO,
      env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(secondPort) },
      stdio: 'ignore',
    });
    await until(
      'the second gateway',
      async () =>
        (await fetch(`${gatewayUrl(secondPort)}/health`).catch(() => undefined))?.ok ? true : undefined,
      30_000,
    );
  });

  after(async () => {
    second?.kill('SIGKILL');
    await stopLocal(child, dataDir);
  });

  it('stores and delivers an event without event_time once, sent three times through two gateways and both forms', async () => {
    const id = `retry-${run}`;
    const body = JSON.stringify({
      event_name: 'lead',
      event_id: id,
      anonymous_id: `anon-${run}`,
      user: { email: `retry-${run}@example.com` },
      form_name: 'callback',
      consent: { ads: 'granted', ad_user_data: 'granted', analytics: 'granted' },
    });
    // A page's script (a write key): the only sender whose address and user agent the gateway
    // fills in, so the copies differ in them (a token's events carry only what they send).
    const created = await eventbusIn(dataDir)('key', 'create', '--origin', KEY_ORIGIN);
    const key = /ebk_[A-Za-z0-9_-]+/.exec(created)?.[0];
    assert.ok(key, created);
    const first = await postFrom(
      '127.0.0.2',
      `${gatewayUrl(ports['gateway'] as number)}/v1/topics/events`,
      key,
      body,
    );
    assert.equal(first.status, 200, first.text);
    await until('the first copy stored and delivered to the webhook', async () =>
      (await delivered(id))['webhook'] === 1 ? true : undefined,
    );
    // The page retries after a timeout: another address, another gateway, the :publish form.
    const envelope = JSON.stringify({ messages: [{ data: Buffer.from(body).toString('base64') }] });
    const retried = await postFrom(
      '127.0.0.3',
      `${gatewayUrl(secondPort)}/v1/projects/local-project/topics/events:publish`,
      key,
      envelope,
    );
    assert.equal(retried.status, 200, retried.text);
    const again = await postFrom(
      '127.0.0.4',
      `${gatewayUrl(ports['gateway'] as number)}/v1/topics/events`,
      key,
      body,
    );
    assert.equal(again.status, 200, again.text);
    // Both copies reach store and are acknowledged without a row (store's log says so).
    await until(
      'both copies settled in store',
      async () => {
        const log = readFileSync(join(dataDir, 'logs', 'store.log'), 'utf8');
        return log.includes(id) || (await counts(id)).events > 1 ? true : undefined;
      },
      20_000,
    ).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 8000));
    assert.deepEqual(await counts(id), { events: 1, dedup: 1, conflicts: 0 });
    const perDestination = await delivered(id);
    assert.ok(Object.keys(perDestination).length >= 1, JSON.stringify(perDestination));
    for (const [destination, n] of Object.entries(perDestination))
      assert.equal(n, 1, `${destination}: ${n} deliveries`);
    // The row names what the server filled in; the identity did not include it.
    const [row] = await query<{ attributes: string; ip: string }>(
      `SELECT TO_JSON_STRING(attributes) AS attributes, device.ip AS ip FROM events.events WHERE event_id = @id`,
      { id },
    );
    assert.match(row?.attributes ?? '', /event_time/);
    assert.equal(row?.ip, '127.0.0.2', 'the first copy’s address');
  });

  it('keeps the same event_id with other content as a second event and one conflict', async () => {
    const id = `conflict-${run}`;
    const post = (form: string) =>
      postFrom(
        '127.0.0.2',
        `${gatewayUrl(ports['gateway'] as number)}/v1/topics/events`,
        token(),
        JSON.stringify({ event_name: 'lead', event_id: id, anonymous_id: 'a', form_name: form }),
      );
    assert.equal((await post('one')).status, 200);
    assert.equal((await post('two')).status, 200);
    await until('two rows', async () => ((await counts(id)).dedup === 2 ? true : undefined));
    assert.deepEqual(await counts(id), { events: 2, dedup: 2, conflicts: 1 });
  });

  it('stores a form post retried through a translator without a time or key once', async () => {
    const file = join(dataDir, 'callback-form.yaml');
    writeFileSync(file, TRANSLATOR);
    await eventbusIn(dataDir)('apply', '-f', file);
    const form = `phone=%2B4915112345678&visitor=v-${run}&form=callback-${run}`;
    const url = `${gatewayUrl(ports['gateway'] as number)}/v1/translators/callback-form`;
    const type = 'application/x-www-form-urlencoded';
    const firstPost = await until(
      'the translator live on the gateway',
      async () => {
        const r = await postFrom('127.0.0.5', url, token(), form, type);
        return r.status === 404 ? undefined : r;
      },
      60_000,
    );
    assert.equal(firstPost.status, 200, firstPost.text);
    const name = `callback-${run}`;
    const rows = () =>
      query<{ event_id: string }>(
        `SELECT event_id FROM events.events WHERE JSON_VALUE(event_data, '$.form_name') = @name`,
        { name },
      );
    await until('the form post stored', async () => ((await rows()).length === 1 ? true : undefined));
    const retry = await postFrom('127.0.0.6', url, token(), form, type);
    assert.equal(retry.status, 200, retry.text);
    await new Promise((r) => setTimeout(r, 8000));
    const stored = await rows();
    assert.equal(stored.length, 1, 'one row for the retried form post');
    const id = stored[0]?.event_id as string;
    assert.deepEqual(await counts(id), { events: 1, dedup: 1, conflicts: 0 });
    for (const [destination, n] of Object.entries(await delivered(id)))
      assert.equal(n, 1, `${destination}: ${n} deliveries`);
  });
});
