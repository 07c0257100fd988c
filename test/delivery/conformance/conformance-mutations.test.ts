/**
 * The conformance runner's own mutation tests (issue #95): `npm run conformance:segment` run on a
 * small synthetic destination test (Segment's Jest style, for the installed Webhook destination; no
 * checkout needed) holds against results that say its cases pass, and fails with exit 1 when our
 * runtime is broken on purpose (wire.ts MUTATIONS: a header dropped, the body altered, nothing
 * sent, every settings object refused, a batch's events sent alone) or when a case is not runnable
 * for a reason not reviewed. Its batch case (testBatchAction, through forward-catalog's batch path)
 * fails with every mutation.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTATIONS } from '../../../scripts/conformance-segment/wire.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts', 'conformance-segment.ts');
const VERSION = (
  JSON.parse(
    readFileSync(join(ROOT, 'node_modules', '@segment', 'action-destinations', 'package.json'), 'utf8'),
  ) as { version: string }
).version;

/**
 * Two cases that run the action (assertions Segment's style: one checks only the status, so that
 * only the wire comparison notices a changed header or body), a batch case of two events that
 * checks only the status too, and a helper test (not runnable).
 */
const SYNTHETIC_TEST = `
import nock from 'nock'
import { createTestEvent, createTestIntegration } from '@segment/actions-core'
import Webhook from '@segment/action-destinations/dist/destinations/webhook'

const testDestination = createTestIntegration(Webhook)
const mapping = {
  url: 'https://hooks.example/in',
  method: 'POST',
  headers: { Authorization: 'Bearer synthetic-token' },
  data: { event: { '@path': '$.event' }, user: { '@path': '$.userId' } }
}

describe('synthetic', () => {
  it('answers 200', async () => {
    nock('https://hooks.example').post('/in').reply(200, {})
    const responses = await testDestination.testAction('send', {
      event: createTestEvent({ event: 'Signed Up', userId: 'u1' }),
      mapping
    })
    expect(responses[0].status).toBe(200)
  })

  it('sends the mapped body', async () => {
    nock('https://hooks.example').post('/in', { event: 'Order Completed', user: 'u2' }).reply(201, {})
    const responses = await testDestination.testAction('send', {
      event: createTestEvent({ event: 'Order Completed', userId: 'u2' }),
      mapping
    })
    expect(responses[0].status).toBe(201)
  })

  it('sends a batch', async () => {
    nock('https://hooks.example').post('/in').reply(200, {})
    const responses = await testDestination.testBatchAction('send', {
      events: [
        createTestEvent({ event: 'Signed Up', userId: 'u3' }),
        createTestEvent({ event: 'Order Completed', userId: 'u4' })
      ],
      mapping
    })
    expect(responses[0].status).toBe(200)
  })

  it('is a helper', () => {
    expect(Object.keys(Webhook.actions)).toContain('send')
  })
})
`;

const FILE = '__tests__/synthetic.test.ts';
const PASSED = [
  `${FILE} › synthetic answers 200`,
  `${FILE} › synthetic sends the mapped body`,
  `${FILE} › synthetic sends a batch`,
];
const HELPER = 'no action run (a unit test of a helper)';

interface Run {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
}

function run(dir: string, reviewed: string, mutation?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        SCRIPT,
        join(dir, 'checkout'),
        '--only',
        'webhook',
        '--results',
        join(dir, 'results.json'),
        '--reviewed',
        reviewed,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, ...(mutation ? { CONFORMANCE_MUTATION: mutation } : {}) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('segment_action: the conformance runner fails when the runtime breaks', function () {
  this.timeout(120_000);
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'conformance-mutations-'));
    const pkg = join(dir, 'checkout', 'packages', 'destination-actions');
    mkdirSync(join(pkg, 'src', 'destinations', 'webhook', '__tests__'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ version: VERSION }));
    writeFileSync(join(pkg, 'src', 'destinations', 'webhook', FILE), SYNTHETIC_TEST);
    const figure = { slug: 'webhook', cases: 4, runnable: 3, passing: 3, passed: PASSED };
    writeFileSync(join(dir, 'results.json'), JSON.stringify({ destinations: [figure] }));
    writeFileSync(join(dir, 'reviewed.json'), JSON.stringify({ [HELPER]: 1 }));
    writeFileSync(join(dir, 'unreviewed.json'), JSON.stringify({}));
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('holds with the runtime as it is, and fails (exit 1) with each mutation or an unreviewed reason', async () => {
    const reviewed = join(dir, 'reviewed.json');
    // Two at a time: each run is the script and two workers.
    const clean = run(dir, reviewed);
    const unreviewed = run(dir, join(dir, 'unreviewed.json'));
    const ok = await clean;
    assert.equal(ok.code, 0, ok.stderr);
    const totals = JSON.parse(ok.stdout.slice(ok.stdout.indexOf('{'))) as Record<string, number>;
    assert.deepEqual(
      [totals['runnable'], totals['passing'], totals['assertions'], totals['wire']],
      [3, 3, 3, 3],
    );
    assert.deepEqual(totals['batch'], { runnable: 1, passing: 1, assertions: 1, wire: 1 });
    const notReviewed = await unreviewed;
    assert.equal(notReviewed.code, 1);
    assert.match(notReviewed.stderr, /FAIL 1 cases not runnable for a reason not reviewed: no action run/);

    const broken: Record<string, Run> = {};
    for (let i = 0; i < MUTATIONS.length; i += 2)
      await Promise.all(
        MUTATIONS.slice(i, i + 2).map(async (m) => {
          broken[m] = await run(dir, reviewed, m);
        }),
      );
    for (const m of MUTATIONS) {
      const r = broken[m] as Run;
      assert.equal(r.code, 1, `${m}: ${r.stderr}`);
      assert.match(
        r.stderr,
        /FAIL webhook: "__tests__\/synthetic\.test\.ts › synthetic sends a batch" passed/,
        m,
      );
      // `send-alone` breaks only batches: the single-event cases still pass.
      const single = /FAIL webhook: "__tests__\/synthetic\.test\.ts › synthetic answers 200" passed/;
      if (m === 'send-alone') assert.doesNotMatch(r.stderr, single, m);
      else assert.match(r.stderr, single, m);
    }
    // The status-only case passes Segment's assertions with a header dropped or a body altered:
    // the wire comparison is what fails it.
    for (const m of ['drop-header', 'alter-body']) {
      const out = broken[m] as Run;
      const totals = JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as Record<string, number>;
      assert.equal(totals['wire'], 0, m);
      assert.ok((totals['assertions'] ?? 0) >= 1, `${m}: the status-only case still passes its assertions`);
    }
  });
});
