/**
 * The hostile-input corpus (test/fixtures/hostile/*.json) against the real gateway and a real
 * Pub/Sub emulator: each case gets its expected status and Google status string, nothing is
 * published for a rejected request, and the gateway keeps serving afterwards.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createPublisher, type EventPublisher } from '../../adapters/publisher.ts';
import { revoke } from '../../gateway/credentials.ts';
import { type Bus, startBus } from './emulator-support.ts';
import { type Answer, fieldsOf, reasonOf, startTestGateway, type TestGateway } from './support.ts';

interface HostileCase {
  readonly name: string;
  readonly method?: string;
  readonly path?: string;
  readonly query?: string;
  readonly topic?: string;
  readonly auth?: 'token' | 'none' | 'scoped' | 'revoked' | 'expired' | 'twoTokens';
  readonly headers?: Record<string, string | null>;
  readonly body?: string;
  readonly bodyHex?: string;
  readonly json?: unknown;
  readonly gen?: { kind: string; [k: string]: unknown };
  readonly gzip?: boolean;
  readonly chunked?: boolean;
  readonly expect: {
    status: number;
    status_string: string;
    reason?: string;
    fields?: string[];
    published?: number;
  };
}

const dir = join(import.meta.dirname, '../fixtures/hostile');
const corpus: { file: string; c: HostileCase }[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((file) =>
    (JSON.parse(readFileSync(join(dir, file), 'utf8')) as HostileCase[]).map((c) => ({ file, c })),
  );

const pv = { event_name: 'page_view' };

/** Builds the body bytes a generator describes (cases too large or too binary to store). */
function generate(gen: NonNullable<HostileCase['gen']>): Buffer {
  switch (gen.kind) {
    case 'deep': {
      const depth = gen['depth'] as number;
      const open = gen['open'] as string;
      const [inner, close] = open === '[' ? ['', ']'] : ['1', '}'];
      return Buffer.from(
        `{"event_name":"page_view","d":${open.repeat(depth - 1)}${inner}${close.repeat(depth - 1)}}`,
      );
    }
    case 'truncatedGzip': {
      const gz = gzipSync(JSON.stringify(pv));
      return gz.subarray(0, Math.floor(gz.length / 2));
    }
    case 'gzipBomb':
      return gzipSync(Buffer.alloc(gen['bytes'] as number, 0x20));
    case 'eventTime': {
      const t = Date.now() + (gen['offsetMs'] as number);
      const value = gen['seconds']
        ? Math.floor(t / 1000)
        : gen['rfc3339']
          ? new Date(t).toISOString().replace('Z', '+00:00')
          : t;
      return Buffer.from(JSON.stringify({ ...pv, event_time: value }));
    }
    case 'batch':
      return Buffer.from(JSON.stringify(Array.from({ length: gen['count'] as number }, () => pv)));
    case 'bigEvent':
      return Buffer.from(JSON.stringify({ ...pv, blob: 'x'.repeat(gen['bytes'] as number) }));
    case 'bigRequest': {
      const each = 100_000;
      const n = Math.ceil((gen['bytes'] as number) / each);
      return Buffer.from(
        JSON.stringify(Array.from({ length: n }, () => ({ ...pv, blob: 'x'.repeat(each) }))),
      );
    }
    case 'envelope': {
      const data = Buffer.from(JSON.stringify(pv)).toString('base64');
      return Buffer.from(
        JSON.stringify({ messages: Array.from({ length: gen['count'] as number }, () => ({ data })) }),
      );
    }
    default:
      throw new Error(`unknown generator ${gen.kind}`);
  }
}

function bodyOf(c: HostileCase): Buffer | undefined {
  let b: Buffer | undefined;
  if (c.body !== undefined) b = Buffer.from(c.body, 'utf8');
  else if (c.bodyHex !== undefined) b = Buffer.from(c.bodyHex, 'hex');
  else if (c.json !== undefined) b = Buffer.from(JSON.stringify(c.json));
  else if (c.gen) b = generate(c.gen);
  return b && c.gzip ? gzipSync(b) : b;
}

/** Sends exactly what the case says: raw path, duplicate headers, chunked or not. */
function send(port: number, c: HostileCase, secrets: Record<string, string>): Promise<Answer> {
  const fill = (s: string) => s.replace(/\{(\w+)\}/g, (_, k: string) => secrets[k] ?? '');
  const headers: Record<string, string> = { host: '127.0.0.1', 'content-type': 'application/json' };
  const extra: [string, string][] = [];
  const auth = c.auth ?? 'token';
  if (auth === 'twoTokens')
    extra.push(
      ['authorization', `Bearer ${secrets['token']}`],
      ['authorization', `Bearer ${secrets['token']}`],
    );
  else if (auth !== 'none') headers['authorization'] = `Bearer ${secrets[auth]}`;
  for (const [k, v] of Object.entries(c.headers ?? {})) {
    if (v === null) delete headers[k];
    else headers[k] = fill(v);
  }
  const body = bodyOf(c);
  if (body && !c.chunked) headers['content-length'] = String(body.length);
  const flat = [...Object.entries(headers), ...extra].flat();
  const path = `${c.path ?? '/v1/topics/events'}${c.query ? `?${fill(c.query)}` : ''}`;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({
      host: '127.0.0.1',
      port,
      method: c.method ?? 'POST',
      path,
      headers: flat,
      agent: false,
    });
    req.on('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: new Headers(res.headers as Record<string, string>),
          body: text ? JSON.parse(text) : {},
        });
      });
    });
    // Writing a refused oversized body may fail after the answer arrived: only earlier errors count.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}

describe('gateway: hostile input corpus (real Pub/Sub emulator)', () => {
  let bus: Bus;
  let publisher: EventPublisher;
  let g: TestGateway;
  const secrets: Record<string, string> = {};

  before(async () => {
    bus = await startBus('test-project', ['events', 'backend_events']);
    publisher = createPublisher({ project: 'test-project', emulatorHost: bus.host, totalTimeoutMs: 3000 });
    g = await startTestGateway({ publisher });
    secrets['token'] = g.token;
    secrets['key'] = g.key;
    secrets['scoped'] = await g.mint(['publish:search']);
    secrets['expired'] = await g.mint(['publish:*'], { expiresAt: new Date(Date.now() - 60_000) });
    secrets['revoked'] = await g.mint(['publish:*']);
    const id = /^ebt_([0-9a-f]{12})_/.exec(secrets['revoked'])?.[1] as string;
    await g.store.update((set) => ({ set: revoke(set, id, new Date()), result: undefined }));
  });
  after(async () => {
    await g.close();
    await publisher.close();
    await bus.close();
  });

  it('has at least 80 cases, uniquely named', () => {
    assert.ok(corpus.length >= 80, `${corpus.length} cases`);
    assert.equal(new Set(corpus.map((x) => x.c.name)).size, corpus.length);
  });

  for (const { file, c } of corpus) {
    it(`${file}: ${c.name} → ${c.expect.status} ${c.expect.status_string}`, async () => {
      const a = await send(g.port, c, secrets);
      assert.equal(a.status, c.expect.status, JSON.stringify(a.body).slice(0, 500));
      if (c.expect.status === 200) {
        assert.equal(a.body.messageIds?.length, c.expect.published);
      } else {
        assert.equal(a.body.error?.status, c.expect.status_string);
        assert.equal(a.body.error?.code, c.expect.status);
        assert.ok(!/\n\s+at /.test(JSON.stringify(a.body)), 'no stack trace');
        if (c.expect.reason) assert.equal(reasonOf(a), c.expect.reason);
        if (c.expect.fields) assert.deepEqual(fieldsOf(a).sort(), [...c.expect.fields].sort());
      }
      const published = await bus.drain(c.topic ?? 'events');
      assert.equal(published.length, c.expect.published ?? 0, 'published exactly what was acknowledged');
    });
  }

  it('keeps serving after the corpus', async () => {
    const health = await fetch(`${g.url}/health`);
    assert.equal(health.status, 200);
    const a = await send(
      g.port,
      { name: 'after', json: pv, expect: { status: 200, status_string: 'OK' } },
      secrets,
    );
    assert.equal(a.status, 200);
    assert.equal((await bus.drain('events')).length, 1);
  });
});
