/**
 * A platform deletion that failed is asked again (functions/schedule/erasures.ts): the request
 * stays pending, the next passes ask only the failed targets with the passes' backoff, and after
 * PLATFORM_ATTEMPTS it completes as `complete_with_failures`, never as plain `complete` (#75).
 * Over fakes of the warehouse and the platforms: this is the pass's bookkeeping, the SQL and the
 * requests are tested elsewhere (erasure.test.ts, erasure-platforms.test.ts).
 */
import assert from 'node:assert/strict';
import { type ErasureRequest, PLATFORM_ATTEMPTS, type PlatformNotice } from '../../core/privacy/erasure.ts';
import { type ErasureDeps, erasurePass } from '../../functions/schedule/erasures.ts';

const T0 = Date.parse('2026-11-25T10:00:00.000Z');

const request: ErasureRequest = {
  erasure_id: 'er-1',
  requested_at: new Date(T0).toISOString(),
  requested_by: 'ada@acme.example',
  identifiers: ['email:ann@example.com'],
  raw: ['ann@example.com'],
};

const notice = (platform: string, target: string, status: PlatformNotice['status']): PlatformNotice => ({
  platform,
  target,
  status,
  detail: status,
  at: new Date(T0).toISOString(),
});

function deps(answers: (only: ReadonlySet<string> | undefined) => PlatformNotice[]) {
  const statuses: string[] = [];
  const asked: (string[] | 'all')[] = [];
  const d: ErasureDeps = {
    options: async () => ({
      project: 'p',
      dataset: 'events',
      ops: 'eventbus_ops',
      identityGraph: false,
      actionRuns: false,
      syncs: [],
    }),
    pending: async () => [],
    read: async () => undefined,
    write: async () => {},
    remove: async () => {},
    select: async () => [],
    dml: async (sql, params) => {
      if (sql.startsWith('MERGE')) statuses.push(String(params['status']));
      return 0;
    },
    writeSuppression: async () => {},
    notify: async (_person, only) => {
      asked.push(only ? [...only].sort() : 'all');
      return answers(only);
    },
  };
  return { d, statuses, asked };
}

/** Passes as the job runs them: each when the last one said it is due. */
async function passes(d: ErasureDeps, n: number) {
  let current = request;
  let now = T0;
  const out: { complete: boolean; request: ErasureRequest }[] = [];
  for (let i = 0; i < n; i++) {
    const outcome = await erasurePass(d, current, new Date(now));
    out.push(outcome);
    if (outcome.complete) break;
    current = outcome.request;
    now = Date.parse(current.next_pass_at ?? '') + 1;
  }
  return out;
}

describe('erasure: a failed platform deletion is retried (#75)', () => {
  it('stays pending, asks only the failed target again, and completes once it succeeds', async () => {
    let metaUp = false;
    const { d, statuses, asked } = deps((only) => {
      const meta = notice('meta_audience', 'buyers', metaUp ? 'sent' : 'failed');
      metaUp = true;
      return only ? [meta] : [notice('ga4_mp', 'ga4', 'sent'), meta, notice('webhook', 'crm', 'unsupported')];
    });
    const out = await passes(d, 10);
    assert.deepEqual(asked, ['all', ['meta_audience buyers']]);
    assert.equal(out.at(-1)?.complete, true);
    assert.equal(statuses.at(-1), 'complete');
    assert.ok(statuses.slice(0, -1).every((s) => s === 'pending'));
    assert.deepEqual(
      out.at(-1)?.request.platforms?.map((n) => `${n.target}:${n.status}`),
      ['ga4:sent', 'crm:unsupported', 'buyers:sent'],
    );
  });

  it(`gives up after ${PLATFORM_ATTEMPTS} attempts as complete_with_failures, never plain complete`, async () => {
    const { d, statuses, asked } = deps((only) =>
      only ? [notice('meta_audience', 'buyers', 'failed')] : [notice('meta_audience', 'buyers', 'failed')],
    );
    const out = await passes(d, 30);
    assert.equal(asked.length, PLATFORM_ATTEMPTS);
    assert.equal(out.at(-1)?.complete, true);
    assert.equal(statuses.at(-1), 'complete_with_failures');
    assert.ok(!statuses.includes('complete'));
    assert.equal(out.at(-1)?.request.platform_attempts, PLATFORM_ATTEMPTS);
  });
});
