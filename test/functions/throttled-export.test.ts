/**
 * Spans leave before the answer (issue #100; adapters/drain.ts, adapters/metrics.ts
 * flushBeforeAnswer, adapters/tracing.ts flushPending): a request-billed Cloud Run instance gets
 * no CPU once it has answered, so spans left to the export queue's 5 s timer may never leave.
 * The fixture function (fixtures/traced-function.ts) runs under the real functions framework CLI;
 * the test suspends it (SIGSTOP) the moment its answer arrives, as the throttling would, and
 * looks at the collector. The same run without the flush (NO_FLUSH) shows the suspension holds
 * the span back, so the first test could not pass by accident.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { FRAMEWORK_CLI, freePort, type Running, startAndProbe } from '../infra/support-bundles.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'traced-function.ts');
/**
 * A trace id of each push's own: a span a previous test's process exports as it stops (its
 * SIGTERM flushes what its suspension held) may reach the collector during the next test, and must
 * not be counted there (on a loaded machine it was).
 */
const traceIds = (function* () {
  for (let n = 1; ; n++) yield `4bf92f3577b34da6a3ce929d${n.toString(16).padStart(8, '0')}`;
})();
const SAMPLED = '01';
const UNSAMPLED = '00';

describe('functions: spans leave before the answer, for a throttled instance', function () {
  this.timeout(30_000);
  let collector: Server;
  let bodies: string[] = [];
  let endpoint = '';
  let running: Running | undefined;

  before(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
      });
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => collector.close(() => r())));
  afterEach(async () => {
    running?.child.kill('SIGCONT');
    await running?.stop();
    running = undefined;
    bodies = [];
  });

  const start = async (env: Record<string, string> = {}): Promise<Running> => {
    const port = await freePort();
    running = await startAndProbe(
      [FRAMEWORK_CLI, '--target=traced', `--source=${FIXTURE}`, '--signature-type=http', `--port=${port}`],
      {
        cwd: join(import.meta.dirname, '..', '..'),
        env: { NODE_ENV: 'production', EVENTBUS_TRACE_ENDPOINT: endpoint, ...env },
        port,
        tcp: true,
      },
    );
    return running;
  };

  /**
   * One push under a trace of its own, sampled (`01`) or not (`00`); the process is suspended as
   * soon as the answer is in; what of that trace reached the collector 400 ms later.
   */
  const pushThenSuspend = async (r: Running, flags: string, query = ''): Promise<string[]> => {
    const traceId = traceIds.next().value as string;
    const traceparent = `00-${traceId}-00f067aa0ba902b7-${flags}`;
    const answer = await fetch(`${r.url}/${query}`, { headers: { traceparent } });
    r.child.kill('SIGSTOP');
    assert.equal(await answer.text(), 'done');
    await new Promise((resolve) => setTimeout(resolve, 400));
    return bodies.filter((b) => b.includes('traced.push') && b.includes(traceId));
  };

  it('exports a sampled push’s span before its answer', async () => {
    const r = await start();
    const exported = await pushThenSuspend(r, SAMPLED);
    assert.equal(exported.length, 1, 'the span reached the collector before the answer');
  });

  it('exports a failed push’s span before its answer, though unsampled', async () => {
    const r = await start();
    assert.equal((await pushThenSuspend(r, UNSAMPLED, '?fail=1')).length, 1);
  });

  it('holds nothing back for an unsampled push that succeeded: no export at all', async () => {
    const r = await start();
    assert.deepEqual(await pushThenSuspend(r, UNSAMPLED), []);
  });

  it('with EVENTBUS_TRACE_FLUSH=timer (CPU always allocated), the answer waits for no export', async () => {
    // What the program sets on an instance-billed service only; the policy eventbus-trace-flush
    // refuses it on a request-billed one, where this span would wait for the next request.
    const r = await start({ EVENTBUS_TRACE_FLUSH: 'timer' });
    assert.deepEqual(await pushThenSuspend(r, SAMPLED), []);
  });

  it('without the flush, the suspended instance keeps the span (the suspension is real)', async () => {
    const r = await start({ NO_FLUSH: '1' });
    assert.deepEqual(await pushThenSuspend(r, SAMPLED), []);
    // Resumed, the queue's own timer (5 s) would send it later: not waited for here.
  });
});
