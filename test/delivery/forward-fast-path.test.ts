/**
 * The forward function's per-delivery fast path keeps its behaviour: kept-alive connections
 * (and a fresh one when the server closed an idle one), ledger rows of concurrent deliveries in
 * one insertAll request against the BigQuery emulator, cached secrets without a promise.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { deliveryServices } from '../../adapters/delivery-services.ts';
import { createHttpSender } from '../../adapters/http-sender.ts';
import { createLedgerBigQueryWriter, createLedgerWriter } from '../../adapters/ledger-writer.ts';
import { createSecrets } from '../../adapters/secrets.ts';
import { forwardPush } from '../../core/delivery/forward.ts';
import { attemptEntry } from '../../core/delivery/ledger.ts';
import { decodePush, deliveryMessage } from '../../core/delivery/message.ts';
import type { StoredEvent } from '../../core/event.ts';
import { plan } from '../../core/plan.ts';
import { driverFor } from '../../core/platforms/drivers.ts';
import { ENV, readFunctionConfig } from '../../core/runtime-config.ts';
import { checkSettings } from '../../core/settings.ts';
import { type BigQueryEmulator, startBigQueryEmulator } from '../../emulators/bigquery/server.ts';
import { emulatorBigQuery, provision } from '../../local/provision.ts';
import type { Destination } from '../../schemas/settings.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';

const post = (url: string, body = '{"a":1}') => ({
  method: 'POST' as const,
  url,
  redactedUrl: url,
  headers: { 'content-type': 'application/json' },
  body,
});

describe('http sender connections', () => {
  let server: Server;
  let base: string;
  let connections = 0;
  const perSocket = new WeakMap<object, number>();
  before(async () => {
    server = createServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // /flaky: the server drops every kept-alive connection at its second request, as a
      // server does when its idle timeout fires while the client picks the socket.
      if (req.url === '/flaky' && n > 1) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${n}`));
    });
    server.on('connection', () => {
      connections++;
    });
    base = await listenOnLoopback(server);
  });
  after(() => closeServer(server));

  it('keeps connections alive between deliveries', async () => {
    const send = createHttpSender();
    const before = connections;
    const bodies: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await send(post(`${base}/ok`), 2000);
      bodies.push(r.kind === 'response' ? r.body : r.message);
    }
    assert.deepEqual(bodies, ['ok 1', 'ok 2', 'ok 3', 'ok 4', 'ok 5']);
    assert.equal(connections - before, 1);
  });

  it('sends again on a fresh connection when a kept-alive one was closed under it', async () => {
    const send = createHttpSender();
    const first = await send(post(`${base}/flaky`), 2000);
    const second = await send(post(`${base}/flaky`), 2000);
    assert.equal(first.kind === 'response' && first.body, 'ok 1');
    assert.equal(second.kind === 'response' && second.body, 'ok 1');
  });

  it('refuses what it cannot send as a network error', async () => {
    const send = createHttpSender();
    const r = await send(post('ftp://127.0.0.1/x'), 2000);
    assert.equal(r.kind, 'network_error');
    assert.match(r.kind === 'network_error' ? r.message : '', /unsupported protocol/);
  });
});

// The insertAll request itself (path, body, per-row errors, failures, retries) is tested against
// a loopback server in test/storage/bigquery-rest.test.ts.
describe('ledger insertAll', () => {
  describe('against the BigQuery emulator', () => {
    let dir: string;
    let emu: BigQueryEmulator;
    let bigquery: BigQuery;
    const project = 'ledger-fast';
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'eventbus-ledger-fast-'));
      emu = await startBigQueryEmulator({ port: 0, dataDir: dir });
      const checked = checkSettings({ name: 'lf', project, region: 'europe-west1', dataset: 'events' });
      assert.ok(checked.ok);
      await provision(plan(checked.settings), { project, bigquery: emu.url, functionUrl: () => 'http://x/' });
      bigquery = emulatorBigQuery(project, emu.url);
    });
    after(async () => {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    });

    // A process stopped between a platform's answer and its ledger row has sent without a record,
    // and the redelivery sends again. That window must be the append's, not the Write API client's
    // load and the stream's opening (the chaos run's duplicates when it was).
    it("has the ledger's connection open before the first push, and writes on it", async () => {
      const opened: number[] = [];
      const sockets: { destroy(): void }[] = [];
      const proxy = createTcpServer((socket) => {
        opened.push(Date.now());
        sockets.push(socket);
        const upstream = connect(emu.port, '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        const end = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
      const port = (proxy.address() as { port: number }).port;
      const before = process.env['BIGQUERY_EMULATOR_HOST'];
      process.env['BIGQUERY_EMULATOR_HOST'] = `http://127.0.0.1:${port}`;
      try {
        const config = readFunctionConfig({
          [ENV.settings]: JSON.stringify({ name: 'lf', project, region: 'europe-west1', dataset: 'events' }),
        });
        const services = await deliveryServices(config, 'forward', {
          ready: () => undefined,
          current: () => undefined,
        });
        assert.equal(opened.length, 1, 'one connection to BigQuery, made before the first push');
        const entry = attemptEntry({
          event_id: 'open-1',
          event_name: 'view_content',
          destination: 'hook',
          status: 'delivered',
          attempt: 1,
          replay: false,
          messageId: 'm-open-1',
          now: new Date('2026-03-01T12:00:00Z'),
        });
        assert.deepEqual(await services.ledger.write([entry]), []);
        assert.equal(opened.length, 1, 'the row went over the connection already open');
        const [found] = await bigquery.query(
          `SELECT event_id FROM \`${project}.events.deliveries\` WHERE event_id = 'open-1'`,
        );
        assert.equal(found.length, 1);
      } finally {
        if (before === undefined) delete process.env['BIGQUERY_EMULATOR_HOST'];
        else process.env['BIGQUERY_EMULATOR_HOST'] = before;
        for (const socket of sockets) socket.destroy();
        await new Promise((r) => proxy.close(r));
      }
    });

    it('writes concurrent ledger rows in one request, and a refused row is refused alone', async () => {
      const writer = createLedgerBigQueryWriter(bigquery, 'events');
      const ledger = createLedgerWriter(writer);
      const entry = (id: string) =>
        attemptEntry({
          event_id: id,
          event_name: 'view_content',
          destination: 'hook',
          status: 'delivered',
          attempt: 1,
          replay: false,
          messageId: `m-${id}`,
          now: new Date('2026-03-01T12:00:00Z'),
        });
      const results = await Promise.all(['x1', 'x2', 'x3'].map((id) => ledger.write([entry(id)])));
      assert.deepEqual(results, [[], [], []]);
      assert.equal(writer.requests, 1);
      const bad = { ...entry('x4'), row: { ...entry('x4').row, no_such_column: 1 } };
      const [good, refused] = await Promise.all([ledger.write([entry('x5')]), ledger.write([bad])]);
      assert.deepEqual(good, []);
      assert.equal(refused.length, 1);
      const [found] = await bigquery.query(
        `SELECT event_id FROM \`${project}.events.deliveries\` WHERE STARTS_WITH(event_id, 'x') ORDER BY event_id`,
      );
      assert.deepEqual(
        found.map((r: { event_id: string }) => r.event_id),
        ['x1', 'x2', 'x3', 'x5'],
      );
    });
  });
});

describe('cached secrets', () => {
  it('peek answers a fresh cached value without reading, and nothing once it expires', async () => {
    let clock = 0;
    let reads = 0;
    const s = createSecrets({
      env: {},
      project: 'p',
      now: () => clock,
      secretManager: async () => {
        reads++;
        return 'v';
      },
    });
    assert.equal(s.peek('K'), undefined);
    assert.equal(await s.get('K'), 'v');
    assert.deepEqual(s.peek('K'), { value: 'v', expires: 300_000 });
    clock = 400_000;
    assert.equal(s.peek('K'), undefined);
    assert.equal(reads, 1);
  });

  it('forward takes secrets given without a promise, and still reports a missing one', async () => {
    const hook: Destination = {
      id: 'hook',
      type: 'webhook',
      base_url: 'http://127.0.0.1:9',
      secrets: { signing_key: 'K' },
    };
    const event: StoredEvent = {
      event_name: 'view_content',
      event_id: 'e1',
      event_time: '2026-03-01T12:00:00Z',
      event_data: {},
    };
    const m = deliveryMessage(event, 'hook');
    const decoded = decodePush({
      message: { data: Buffer.from(m.data).toString('base64'), attributes: m.attributes, messageId: '1' },
    });
    assert.ok(decoded.ok);
    const run = (secret: string | undefined) =>
      forwardPush(decoded.push, {
        destinations: [hook],
        driverFor,
        getSecret: () => secret,
        send: async (request) => ({
          kind: 'response',
          status: request.headers['x-eventbus-signature'] ? 200 : 400,
          headers: {},
          body: '',
        }),
        now: () => new Date('2026-03-01T12:00:00Z'),
      });
    assert.equal((await run('key')).entries[0]?.row.status, 'delivered');
    const missing = await run(undefined);
    assert.equal(missing.ack, false);
    assert.match(missing.entries[0]?.row.reason ?? '', /secret K \(signing_key\) has no value/);
  });
});
