/**
 * Two whole `forward-catalog` instances against a provider that rotates refresh tokens (issue
 * #100): both function processes run under the real functions-framework CLI with the command line
 * `npm start` gives forward-catalog (local/services.ts), on one Secret Manager emulator (every
 * secret, the refresh token among them), one BigQuery emulator (the ledger) and one Firestore
 * emulator (the send-once claims). Segment's google-sheets destination reaches the local OAuth
 * stand-in and the Sheets stand-in through its base_url; the OAuth client rotates its refresh
 * token at every refresh and takes the used one back at once, as such providers do, and its
 * access tokens live 30 s, under the runtime's 60 s margin, so every delivery refreshes.
 * Deliveries are pushed to both instances in parallel, round after round: the token endpoint
 * never answers `invalid_grant`, no ledger row is `rejected`, every row is `delivered`, and the
 * refresh-token secret gains exactly one version per rotation, the newest being the token the
 * endpoint takes. With the claim's compare-and-swap gone (adapters/secret-versions.ts sending no
 * etag), both instances refresh with one token and the second is refused: this test fails.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FirestoreEmulator, startFirestoreEmulator } from '@eventbus/firestore-emulator/server.ts';
import type { BigQuery } from '@google-cloud/bigquery';
import { deliveryMessage } from '../../core/delivery/message.ts';
import { CATALOG_FUNCTION } from '../../core/deploy/catalog-function.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan as planOf } from '../../core/plan.ts';
import { checkSettings, formatErrors } from '../../core/settings.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { type PubSubEmulator, startPubSubEmulator } from '../../emulators/pubsub/server.ts';
import {
  type SecretManagerEmulator,
  startSecretManagerEmulator,
} from '../../emulators/secret-manager/server.ts';
import { type StorageEmulator, startStorageEmulator } from '../../emulators/storage/server.ts';
import { type CaptureReceiver, startCaptureReceiver } from '../../local/platforms/capture.ts';
import { SPREADSHEETS_PATH } from '../../local/platforms/google-sheets.ts';
import { CLIENTS_PATH } from '../../local/platforms/oauth.ts';
import { freePort } from '../../local/ports.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import { forwardCatalogFunction, type LocalContext, writeSettingsFile } from '../../local/services.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';
import type { Settings } from '../../schemas/settings.ts';
import { googleSheetsDestination } from '../support/google-sheets.ts';
import { startFunctionProcess } from './support/stack.ts';

const PROJECT = 'rotation-test';
const TOKEN_HOST = 'www.googleapis.com';
const SPREADSHEET = 'rotation-book';
/** The `oauth2` connection's secrets in Secret Manager, by role. */
const SECRETS = {
  client_id: 'SHEETS_CLIENT_ID',
  client_secret: 'SHEETS_CLIENT_SECRET',
  refresh_token: 'SHEETS_REFRESH_TOKEN',
} as const;
const REFRESH_SECRET = SECRETS.refresh_token;
const CLIENT = { id: 'rotating-client', secret: 'rotating-secret', refresh: 'rotating-r0' };
/** Rounds of deliveries; each round pushes PER_INSTANCE deliveries to each instance at once. */
const ROUNDS = 3;
const PER_INSTANCE = 2;

const purchase = (id: string): StoredEvent => ({
  event_name: 'purchase',
  event_id: id,
  event_time: new Date(Date.now() - 60_000).toISOString(),
  user_id: `u-${id}`,
  event_data: { transaction_id: `order-${id}`, value: 42, currency: 'EUR' },
});

describe('delivery: two forward-catalog instances against a provider that rotates refresh tokens', function () {
  this.timeout(90_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'eventbus-rotation-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  let ps: PubSubEmulator | undefined;
  let bq: BigQueryEmulator | undefined;
  let gcs: StorageEmulator | undefined;
  let fs: FirestoreEmulator | undefined;
  let sm: SecretManagerEmulator | undefined;
  let capture: CaptureReceiver | undefined;
  let bigquery: BigQuery;
  let dataset = '';

  const secretCall = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sm?.url}/v1/projects/${PROJECT}/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const addSecret = async (name: string, value: string) => {
    assert.equal(
      (await secretCall('POST', `secrets?secretId=${name}`, { replication: { automatic: {} } })).status,
      200,
    );
    const data = Buffer.from(value).toString('base64');
    assert.equal((await secretCall('POST', `secrets/${name}:addVersion`, { payload: { data } })).status, 200);
  };
  const postCapture = async (path: string, body: unknown) => {
    const res = await fetch(`${capture?.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 204, await res.text());
  };
  /** One delivery pushed to an instance as Pub/Sub pushes it; the status it answered. */
  const pushTo = async (port: number, event: StoredEvent): Promise<number> => {
    const m = deliveryMessage(event, 'sheets');
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        message: {
          data: Buffer.from(m.data).toString('base64'),
          attributes: m.attributes,
          messageId: `m-${event.event_id}`,
        },
        subscription: `projects/${PROJECT}/subscriptions/deliveries-sheets`,
        deliveryAttempt: 1,
      }),
      signal: AbortSignal.timeout(60_000),
    });
    await res.arrayBuffer();
    return res.status;
  };

  before(async () => {
    ps = await startPubSubEmulator({ port: 0, dataDir: join(dataDir, 'pubsub'), fsync: 'none' });
    bq = await startBigQueryEmulator({ port: 0, dataDir: join(dataDir, 'bigquery') });
    gcs = await startStorageEmulator({ port: 0, dataDir: join(dataDir, 'storage'), fsync: 'none' });
    fs = await startFirestoreEmulator({ port: 0, dataDir: join(dataDir, 'firestore'), fsync: 'none' });
    sm = await startSecretManagerEmulator({ port: 0, dataDir: join(dataDir, 'sm'), fsync: 'none' });
    capture = await startCaptureReceiver();
    const base: Settings = {
      name: 'rotationtest',
      project: PROJECT,
      region: 'europe-west1',
      dataset: 'events',
      destinations: [googleSheetsDestination(SPREADSHEET, 'google', { base_url: capture.url })],
      connections: [{ id: 'google', type: 'oauth2', secrets: SECRETS }],
    };
    const checked = checkSettings(base);
    if (!checked.ok) throw new Error(formatErrors(checked.errors));
    const p = planOf(checked.settings);
    dataset = p.dataset;
    for (let i = 0; i < 2; i++) ports.push(await freePort());
    const ctxOf = (port: number): LocalContext => ({
      root: REPO_ROOT,
      dataDir,
      logDir: dataDir,
      ports: {
        pubsub: ps?.port ?? 0,
        bigquery: bq?.port ?? 0,
        storage: gcs?.port ?? 0,
        firestore: fs?.port ?? 0,
        'secret-manager': sm?.port ?? 0,
        studio: 0,
        gateway: 0,
        store: 0,
        forward: 0,
        schedule: 0,
        [CATALOG_FUNCTION]: port,
        // The capturing stand-in in the receiver's place: the egress gate allows its origin.
        receiver: Number(new URL(capture?.url ?? 'http://127.0.0.1:1').port),
      },
      settings: checked.settings,
      project: PROJECT,
      node: process.execPath,
    });
    writeSettingsFile(ctxOf(0));
    const report = await provision(p, {
      project: PROJECT,
      pubsub: `127.0.0.1:${ps.port}`,
      bigquery: bq.url,
      storage: gcs.url,
      firestore: fs.host,
      functionUrl: () => 'http://127.0.0.1:1/',
    });
    assert.deepEqual(report.conflicts, []);
    bigquery = emulatorBigQuery(PROJECT, bq.url);
    await addSecret(SECRETS.client_id, CLIENT.id);
    await addSecret(SECRETS.client_secret, CLIENT.secret);
    await addSecret(REFRESH_SECRET, CLIENT.refresh);
    await postCapture(CLIENTS_PATH, {
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      refresh_token: CLIENT.refresh,
      rotate_refresh_tokens: true,
      expires_in: 30,
    });
    await postCapture(SPREADSHEETS_PATH, { id: SPREADSHEET });
    for (const port of ports) {
      const spec = forwardCatalogFunction(ctxOf(port));
      // No OTLP endpoint here: the capturing stand-in is not the receiver's trace store.
      const { EVENTBUS_TRACE_ENDPOINT: _traces, ...env } = spec.env;
      await startFunctionProcess({ ...spec, env }, children);
    }
  });

  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(
      children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)),
    );
    await capture?.close();
    await sm?.close();
    await ps?.close();
    await bq?.close().catch(() => {});
    await gcs?.close().catch(() => {});
    await fs?.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('both refresh in parallel: no invalid_grant, no rejected row, one new version per rotation', async () => {
    const ids: string[] = [];
    const answers: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const pushes = ports.flatMap((port, instance) =>
        Array.from({ length: PER_INSTANCE }, (_, k) => {
          const id = `rot-${round}-${instance}-${k}`;
          ids.push(id);
          return pushTo(port, purchase(id));
        }),
      );
      answers.push(...(await Promise.all(pushes)));
    }
    const tokenCalls = capture?.captured(TOKEN_HOST) ?? [];
    const refused = tokenCalls.filter((c) => c.status !== 200);
    assert.deepEqual(
      refused.map((c) => `${c.status} ${JSON.stringify(c.response)}`),
      [],
      'the token endpoint refused no refresh (invalid_grant: a token used twice)',
    );
    const [rows] = await bigquery.query({
      query: `SELECT event_id, status, reason FROM \`${PROJECT}.${dataset}.deliveries\` WHERE destination = 'sheets'`,
    });
    const ledger = rows as { event_id: string; status: string; reason: string | null }[];
    assert.deepEqual(
      ledger.filter((r) => r.status !== 'delivered'),
      [],
      'every row delivered: none rejected, none failed',
    );
    assert.deepEqual(ledger.map((r) => r.event_id).sort(), [...ids].sort(), 'one row per delivery');
    assert.deepEqual(
      answers,
      ids.map(() => 204),
      'every push acknowledged',
    );
    // Both instances refreshed (each at least its first delivery's token), more than once in all.
    const rotations = tokenCalls.length;
    assert.ok(rotations >= ROUNDS * ports.length, `a refresh per instance and round: ${rotations}`);
    const listed = (await secretCall('GET', `secrets/${REFRESH_SECRET}/versions`)).json['versions'] as {
      state: string;
    }[];
    assert.equal(listed.length, 1 + rotations, 'the first token, then exactly one version per rotation');
    assert.equal(listed[0]?.state, 'ENABLED', 'the newest version is enabled: no claim left behind');
    const newest = (await secretCall('GET', `secrets/${REFRESH_SECRET}/versions/latest:access`)).json;
    const token = Buffer.from((newest['payload'] as { data: string }).data, 'base64').toString();
    const check = await fetch(`${capture?.url}/${TOKEN_HOST}/oauth2/v4/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
      }).toString(),
    });
    assert.equal(check.status, 200, 'the newest version is the refresh token the endpoint takes now');
  });
});
