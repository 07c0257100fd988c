/**
 * adapters/trace-reader.ts against loopback servers: Cloud Trace's answers (200, 404, 403, a body
 * that is no trace, no answer at all) come back as a trace or a structured error, never a throw;
 * and the local receiver (local/receiver/traces.ts) serves v1's traces.get from the OTLP spans
 * exported to it: the same reader reads it, 404 in Google's error JSON for an unknown trace, 400
 * for a malformed id.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTraceReader } from '../../../adapters/trace-reader.ts';
import { createTraceStore } from '../../../local/receiver/traces.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe('trace reader: Cloud Trace API v1 traces.get', () => {
  const asked: string[] = [];
  let answer: Handler = () => {};
  let api: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    api = await serve((req, res) => {
      asked.push(`${req.method} ${req.url}`);
      answer(req, res);
    });
  });
  after(() => api.close());
  beforeEach(() => {
    asked.length = 0;
  });

  it('200: the trace, its spans as v1 gives them, asked at the project and trace id', async () => {
    answer = (_req, res) =>
      json(res, 200, {
        projectId: 'p1',
        traceId: TRACE,
        spans: [
          {
            spanId: '161',
            kind: 'RPC_SERVER',
            name: 'gateway.receive',
            startTime: '2023-11-14T22:13:20.000Z',
            endTime: '2023-11-14T22:13:20.012Z',
            parentSpanId: '67667974448284343',
            labels: { 'service.name': 'gateway' },
          },
        ],
      });
    const read = await createTraceReader({ endpoint: api.url })('p1', TRACE);
    assert.deepEqual(asked, [`GET /v1/projects/p1/traces/${TRACE}`]);
    assert.ok(read.ok);
    assert.equal(read.trace.spans[0]?.spanId, '161');
    assert.equal(read.trace.spans[0]?.parentSpanId, '67667974448284343');
  });

  it('404 and 403: Google’s error status and message, structured', async () => {
    answer = (_req, res) =>
      json(res, 404, { error: { code: 404, message: 'Trace not found', status: 'NOT_FOUND' } });
    assert.deepEqual(await createTraceReader({ endpoint: api.url })('p1', TRACE), {
      ok: false,
      http: 404,
      status: 'NOT_FOUND',
      message: 'Trace not found',
    });
    answer = (_req, res) =>
      json(res, 403, {
        error: {
          code: 403,
          message: "Permission 'cloudtrace.traces.get' denied",
          status: 'PERMISSION_DENIED',
        },
      });
    const denied = await createTraceReader({ endpoint: api.url })('p1', TRACE);
    assert.equal(denied.ok, false);
    assert.equal(!denied.ok && denied.status, 'PERMISSION_DENIED');
    assert.equal(!denied.ok && denied.http, 403);
    // A 403 with no JSON body still says what it is.
    answer = (_req, res) => res.writeHead(403).end('no');
    const bare = await createTraceReader({ endpoint: api.url })('p1', TRACE);
    assert.equal(!bare.ok && bare.status, 'PERMISSION_DENIED');
  });

  it('a 200 that is no trace, a server that never answers, a closed port: UNAVAILABLE, never a throw', async () => {
    answer = (_req, res) => json(res, 200, { hello: 'world' });
    const junk = await createTraceReader({ endpoint: api.url })('p1', TRACE);
    assert.equal(!junk.ok && junk.status, 'UNAVAILABLE');
    answer = () => {}; // holds the request
    const started = Date.now();
    const slow = await createTraceReader({ endpoint: api.url, timeoutMs: 300 })('p1', TRACE);
    assert.equal(!slow.ok && slow.status, 'UNAVAILABLE');
    assert.ok(Date.now() - started < 10_000);
    const closed = await serve(() => {});
    const url = closed.url;
    await closed.close();
    const gone = await createTraceReader({ endpoint: url })('p1', TRACE);
    assert.equal(!gone.ok && gone.http, 503);
  });

  it('a malformed trace id is refused before any call', async () => {
    const read = await createTraceReader({ endpoint: api.url })('p1', `${TRACE.slice(1)}/../x`);
    assert.equal(!read.ok && read.status, 'INVALID_ARGUMENT');
    assert.deepEqual(asked, []);
  });
});

describe('trace reader: the local receiver serves traces.get from its OTLP spans', () => {
  const store = createTraceStore();
  let receiver: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    receiver = await serve((req, res) => {
      if (!store.handle(req, res, (req.url ?? '/').split('?')[0] as string)) res.writeHead(404).end();
    });
  });
  after(() => receiver.close());

  const attr = (key: string, value: Record<string, unknown>) => ({ key, value });
  const otlpSpan = (
    spanId: string,
    parentSpanId: string,
    name: string,
    start: string,
    end: string,
    extra = {},
  ) => ({
    traceId: TRACE.toUpperCase(),
    spanId,
    parentSpanId,
    name,
    kind: 2,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    ...extra,
  });

  it('answers v1’s shape: decimal ids, RFC 3339 times, parentage, labels from attributes and the service', async () => {
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [attr('service.name', { stringValue: 'store' })] },
          scopeSpans: [
            {
              spans: [
                otlpSpan(
                  '00000000000000b2',
                  '00F067AA0BA902B7',
                  'store',
                  '1700000000020000000',
                  '1700000000030000000',
                  {
                    kind: 5,
                    attributes: [
                      attr('eventbus.rows', { intValue: '1' }),
                      attr('eventbus.table', { stringValue: 'events' }),
                    ],
                    status: { code: 2 },
                  },
                ),
              ],
            },
          ],
        },
      ],
    };
    const post = await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(post.status, 200);
    const read = await createTraceReader({ endpoint: receiver.url })('local-project', TRACE);
    assert.ok(read.ok, JSON.stringify(read));
    assert.deepEqual(read.trace, {
      projectId: 'local-project',
      traceId: TRACE,
      spans: [
        {
          spanId: '178',
          kind: 'SPAN_KIND_UNSPECIFIED',
          name: 'store',
          startTime: '2023-11-14T22:13:20.020000000Z',
          endTime: '2023-11-14T22:13:20.030000000Z',
          parentSpanId: '67667974448284343',
          labels: {
            'eventbus.rows': '1',
            'eventbus.table': 'events',
            'service.name': 'store',
            'otel.status_code': 'ERROR',
          },
        },
      ],
    });
  });

  it('counts every span it takes, past the newest 500 that spans() answers (the tracing bench reads it)', async () => {
    const before = store.taken();
    const spans = Array.from({ length: 600 }, (_, i) =>
      otlpSpan(
        i.toString(16).padStart(16, 'a'),
        '',
        'gateway.receive',
        '1700000000000000000',
        '1700000000001000000',
      ),
    );
    const post = await fetch(`${receiver.url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] }),
    });
    assert.equal(post.status, 200);
    assert.equal(store.spans().length, 500);
    assert.equal(store.taken() - before, 600);
  });

  it('404 in Google’s error JSON for an unknown trace, 400 for a malformed id', async () => {
    const missing = await fetch(`${receiver.url}/v1/projects/p/traces/${'0'.repeat(31)}1`);
    assert.equal(missing.status, 404);
    assert.deepEqual(await missing.json(), {
      error: { code: 404, message: 'Trace not found', status: 'NOT_FOUND' },
    });
    const bad = await fetch(`${receiver.url}/v1/projects/p/traces/not-a-trace`);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
    const read = await createTraceReader({ endpoint: receiver.url })('p', `${'0'.repeat(31)}1`);
    assert.equal(!read.ok && read.status, 'NOT_FOUND');
  });
});
