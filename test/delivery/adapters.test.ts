import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHttpSender, MAX_RESPONSE_BYTES } from '../../adapters/http-sender.ts';
import { createLedgerWriter } from '../../adapters/ledger-writer.ts';
import { createSecrets } from '../../adapters/secrets.ts';
import { remoteContext, setupTracing, startSpan, withSpan } from '../../adapters/tracing.ts';
import type { LedgerEntry } from '../../core/delivery/ledger.ts';
import { attemptEntry, skippedEntry } from '../../core/delivery/ledger.ts';
import type { InsertRow } from '../../core/warehouse/rows.ts';
import { closeServer, listenOnLoopback } from '../support/loopback.ts';

const request = (url: string) => ({
  method: 'POST' as const,
  url,
  redactedUrl: url,
  headers: { 'content-type': 'application/json' },
  body: '{"a":1}',
});

describe('http sender', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        seen.push(`${req.url} ${body}`);
        if (req.url === '/echo-length') {
          res.writeHead(200).end(`${req.headers['content-length']} ${Buffer.byteLength(body)}`);
          return;
        }
        if (req.url?.startsWith('/echo?')) {
          res.writeHead(200).end(`${req.url} ${req.headers.authorization ?? ''} ${req.headers.host}`);
          return;
        }
        if (req.url === '/ok') res.writeHead(201, { 'x-a': 'b' }).end('fine');
        else if (req.url === '/busy') res.writeHead(503).end('later');
        else if (req.url === '/big') res.writeHead(200).end('x'.repeat(MAX_RESPONSE_BYTES * 3));
        else if (req.url === '/redirect') res.writeHead(302, { location: '/ok' }).end();
        // /slow never answers within the test's timeout
      });
    });
    base = await listenOnLoopback(server);
  });
  after(() => closeServer(server));

  const send = createHttpSender();
  it('returns any status with body and headers', async () => {
    const r = await send(request(`${base}/ok`), 2000);
    assert.deepEqual(r.kind === 'response' && [r.status, r.body, r.headers['x-a']], [201, 'fine', 'b']);
    assert.ok(seen.includes('/ok {"a":1}'));
    const busy = await send(request(`${base}/busy`), 2000);
    assert.equal(busy.kind === 'response' && busy.status, 503);
  });
  it('sends a body of multi-byte characters whole, its content-length in bytes', async () => {
    const body = '{"name":"Crème brûlée €5 😀"}';
    const r = await send({ ...request(`${base}/echo-length`), body }, 2000);
    const bytes = Buffer.byteLength(body);
    assert.ok(bytes > body.length);
    assert.equal(r.kind === 'response' && r.body, `${bytes} ${bytes}`);
    assert.ok(seen.includes(`/echo-length ${body}`));
  });
  it('does not follow redirects', async () => {
    const r = await send(request(`${base}/redirect`), 2000);
    assert.equal(r.kind === 'response' && r.status, 302);
  });
  it('caps the body it keeps', async () => {
    const r = await send(request(`${base}/big`), 5000);
    assert.equal(r.kind === 'response' && r.body.length, MAX_RESPONSE_BYTES);
  });
  it('turns a timeout into a network error', async () => {
    const r = await send(request(`${base}/slow`), 150);
    assert.equal(r.kind, 'network_error');
    assert.match(r.kind === 'network_error' ? r.message : '', /timeout after 150 ms/);
  });
  it('sends each URL to its own path and query, whichever it sent before (URLs are parsed once)', async () => {
    const echo = async (url: string) => {
      const r = await send(request(url), 2000);
      return r.kind === 'response' ? r.body : r.message;
    };
    const port = new URL(base).port;
    for (let round = 0; round < 2; round++) {
      assert.equal(await echo(`${base}/echo?a=1`), `/echo?a=1  127.0.0.1:${port}`);
      assert.equal(await echo(`${base}/echo?a=2&b=%C3%A9`), `/echo?a=2&b=%C3%A9  127.0.0.1:${port}`);
    }
    // Credentials in the URL go as Basic authentication, decoded, as node:http sends them.
    const withUser = `http://us%40er:p%3Ass@127.0.0.1:${port}/echo?c=3`;
    assert.equal(
      await echo(withUser),
      `/echo?c=3 Basic ${Buffer.from('us@er:p:ss').toString('base64')} 127.0.0.1:${port}`,
    );
  });
  it('answers a URL it cannot send to with a network error, every time', async () => {
    for (let round = 0; round < 2; round++) {
      const bad = await send({ ...request('not a url'), redactedUrl: 'not a url' }, 2000);
      assert.deepEqual(bad, { kind: 'network_error', message: 'invalid URL (not a url)' });
      const ftp = await send({ ...request('ftp://127.0.0.1/x'), redactedUrl: 'ftp://127.0.0.1/x' }, 2000);
      assert.deepEqual(ftp, {
        kind: 'network_error',
        message: 'unsupported protocol ftp: (ftp://127.0.0.1/x)',
      });
    }
  });
  it('turns a refused connection into a network error', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const r = await send(request(`http://127.0.0.1:${port}/`), 2000);
    assert.equal(r.kind, 'network_error');
    assert.match(r.kind === 'network_error' ? r.message : '', /ECONNREFUSED/);
  });
});

describe('secrets', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'eventbus-secrets-'));
    writeFileSync(join(dir, 'FILE_KEY'), 'from-file\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads env first, then the secrets dir; missing is undefined', async () => {
    const s = createSecrets({ env: { ENV_KEY: 'from-env', FILE_KEY: '' }, secretsDir: dir, project: 'p' });
    assert.equal(await s.get('ENV_KEY'), 'from-env');
    assert.equal(await s.get('FILE_KEY'), 'from-file');
    assert.equal(await s.get('NOPE'), undefined);
  });
  it('refuses names that could leave the secrets dir', async () => {
    const s = createSecrets({ env: {}, secretsDir: dir, project: 'p' });
    await assert.rejects(s.get('../etc/passwd'), /invalid secret name/);
  });
  it('uses Secret Manager without a secrets dir, cached; missing values re-checked sooner', async () => {
    let clock = 0;
    const calls: string[] = [];
    const values: Record<string, string> = { A: 'a1' };
    const s = createSecrets({
      env: {},
      project: 'proj',
      now: () => clock,
      secretManager: async (project, name) => {
        calls.push(`${project}/${name}`);
        return values[name];
      },
    });
    assert.equal(await s.get('A'), 'a1');
    assert.equal(await s.get('B'), undefined);
    values['A'] = 'a2';
    values['B'] = 'b1';
    clock = 11_000;
    assert.equal(await s.get('A'), 'a1'); // still cached
    assert.equal(await s.get('B'), 'b1'); // missing → re-read after 10 s
    clock = 400_000;
    assert.equal(await s.get('A'), 'a2');
    assert.deepEqual(calls, ['proj/A', 'proj/B', 'proj/B', 'proj/A']);
  });
  it('propagates an unreachable Secret Manager as an error', async () => {
    const s = createSecrets({
      env: {},
      project: 'p',
      secretManager: async () => {
        throw new Error('unavailable');
      },
    });
    await assert.rejects(s.get('X'), /unavailable/);
  });
});

describe('ledger writer', () => {
  it('writes rows to deliveries with their insertIds', async () => {
    const writes: [string, readonly InsertRow[]][] = [];
    const w = createLedgerWriter({
      write: async (table, rows) => {
        writes.push([table, rows]);
        return [];
      },
    });
    const e: LedgerEntry = skippedEntry(
      { event_id: 'e', event_name: 'n', payload_digest: 'abc' },
      'd',
      'why',
      new Date(0),
    );
    await w.write([e]);
    assert.equal(writes[0]?.[0], 'deliveries');
    // The event's identity (id and digest): another event that reused `e` gets its own row.
    assert.equal(writes[0]?.[1][0]?.insertId, 'e/abc/d/skipped');
    assert.equal(writes[0]?.[1][0]?.json['payload_digest'], 'abc');
    assert.equal(writes[0]?.[1][0]?.json['status'], 'skipped');
    // Outside a span (tracing never set up), no trace_id.
    assert.equal(writes[0]?.[1][0]?.json['trace_id'], undefined);
  });

  it('names on each row the trace of the span it is written under', async () => {
    const writes: (readonly InsertRow[])[] = [];
    const w = createLedgerWriter({
      write: async (_table, rows) => {
        writes.push(rows);
        return [];
      },
    });
    const tracing = setupTracing({ service: 'forward', project: 'p', ratio: 0 });
    try {
      const parent = remoteContext(`00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-00`);
      const span = startSpan('forward', parent, {});
      await withSpan(parent, span, () =>
        w.write([skippedEntry({ event_id: 'e', event_name: 'n' }, 'd', 'why', new Date(0))]),
      );
      span.end();
    } finally {
      await tracing.shutdown();
    }
    assert.equal(writes[0]?.[0]?.json['trace_id'], 'ab'.repeat(16));
  });
});

describe('ledger rows and the deliveries table', () => {
  it('have the same columns, in the same order', async () => {
    const { deliveryColumns } = await import('../../core/warehouse/warehouse.ts');
    const row = skippedEntry({ event_id: 'e', event_name: 'n' }, 'd', 'why', new Date(0)).row;
    // The platform's answer is only on rows of an attempt the platform answered (platform-answer.test.ts).
    // trace_id is set by the ledger writer from the span a row is written under (adapters/ledger-writer.ts).
    // backfill is only on rows of a backfill (core/delivery/backfill.ts).
    const answer = new Set([
      'platform_ref',
      'platform_events_received',
      'platform_response',
      'trace_id',
      'backfill',
    ]);
    const columns = deliveryColumns()
      .map((c) => c.name)
      .filter((c) => !answer.has(c));
    // identifiers is only on rows of an attempt whose request was built (match quality).
    assert.deepEqual(
      Object.keys(row),
      columns.filter((c) => c !== 'identifiers'),
    );
    const attempt = attemptEntry({
      event_id: 'e',
      event_name: 'n',
      destination: 'd',
      status: 'delivered',
      attempt: 1,
      replay: false,
      messageId: 'm',
      now: new Date(0),
      identifiers: ['email'],
    }).row;
    assert.deepEqual(Object.keys(attempt), columns);
  });
});
