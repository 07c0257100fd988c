/** core/console/live-events.ts: which refusals become rows (bounded per instance and per kind), and their rows. */
import assert from 'node:assert/strict';
import {
  createRefusalSampler,
  liveProblem,
  REFUSAL_FIELDS_MAX,
  type RefusalEvent,
  refusalDetail,
  refusalRow,
  refusalSource,
} from '../../../core/console/live-events.ts';
import { apiError } from '../../../core/errors.ts';

const bad = (credential = 'token:t1', reason = 'INVALID_CREDENTIALS'): RefusalEvent => ({
  status: 401,
  code: 'INVALID_CREDENTIALS',
  reason,
  credential,
  path: '/v1/topics/events',
});

describe('live events: the refusal sampler', () => {
  it('writes the first refusal of a kind, then at most one a second, each row counting those left out', () => {
    const s = createRefusalSampler({ perSecond: 100, burst: 100, perKindMs: 1000, maxKinds: 10 });
    assert.equal(s.admit(bad(), 0), 1);
    for (let t = 1; t < 1000; t += 100) assert.equal(s.admit(bad(), t), 0);
    // 10 left out, then the next second's row stands for them and itself.
    assert.equal(s.admit(bad(), 1000), 11);
    // Another kind is not held back by the first.
    assert.equal(s.admit(bad('token:t2'), 1001), 1);
  });

  it('caps rows per instance however many kinds a flood makes up', () => {
    const s = createRefusalSampler({ perSecond: 5, burst: 10, perKindMs: 1000, maxKinds: 1000 });
    let rows = 0;
    // 10,000 refusals with made-up credentials over 10 seconds.
    for (let i = 0; i < 10_000; i++) if (s.admit(bad(`hash:${i}`), i) > 0) rows++;
    assert.ok(rows <= 10 + 5 * 10, `${rows} rows`);
    assert.ok(rows >= 50, `${rows} rows`);
  });

  it('keeps a bad_signature probe hidden in a flood of made-up tokens (#75)', () => {
    const s = createRefusalSampler({ perSecond: 5, burst: 10, perKindMs: 1000, maxKinds: 1000 });
    const probe: RefusalEvent = {
      status: 401,
      code: 'INVALID_CREDENTIALS',
      reason: 'bad_signature',
      credential: 'signature:hmac',
      translator: 'shopify-orders',
      path: '/v1/translators/shopify-orders',
    };
    // Ten thousand made-up tokens a second; a signature probe in the middle of each second.
    const probes: number[] = [];
    for (let i = 0; i < 30_000; i++) {
      s.admit(bad(`sha256:${i.toString(16).padStart(8, '0')}`), i / 10);
      if (i % 10_000 === 5000) probes.push(s.admit(probe, i / 10));
    }
    assert.deepEqual(probes, [1, 1, 1], 'each probe a row of its own');
  });

  it('names the source by translator, else credential, else (anonymous)', () => {
    assert.equal(refusalSource({ translator: 'forms', credential: 'token:a' }), 'translator:forms');
    assert.equal(refusalSource({ credential: 'key:k1' }), 'key:k1');
    assert.equal(refusalSource({}), '(anonymous)');
    const row = refusalRow({ ...bad(), credential: undefined, size: 12 }, 3, 0, 'gw/1');
    assert.deepEqual(
      [row.refused_at, row.source, row.credential, row.size, row.represents],
      ['1970-01-01T00:00:00.000Z', '(anonymous)', null, 12, 3],
    );
  });

  it('keeps a refusal’s message and field violations, bounded, without the values sent', () => {
    const e = apiError('INVALID_ROWS', { translator: 'forms', count: 1, total: 1 }, [
      { field: 'rows[0].value', description: 'expected number' },
      { field: 'rows[0].currency', description: 'must be one of EUR, USD, got "ana@example.net"' },
    ]);
    const d = refusalDetail(e.body);
    assert.equal(d.message, e.body.error.message);
    assert.equal(d.fields, 'rows[0].value: expected number\nrows[0].currency: must be one of EUR, USD');
    const row = refusalRow({ ...bad(), ...d }, 1, 0, 'gw/1');
    assert.deepEqual([row.message, row.fields], [d.message, d.fields]);
    assert.deepEqual(
      [refusalRow(bad(), 1, 0, 'gw/1').message, refusalRow(bad(), 1, 0, 'gw/1').fields],
      [null, null],
    );
    const many = Array.from({ length: 25 }, (_, i) => ({
      field: `rows[${i}].value`,
      description: 'x'.repeat(500),
    }));
    const lines = refusalDetail(apiError('INVALID_ROWS', {}, many).body).fields?.split('\n') ?? [];
    assert.equal(lines.length, REFUSAL_FIELDS_MAX + 1);
    assert.equal(lines.at(-1), '… and 15 more');
    assert.ok(lines.every((l) => l.length <= 200));
    assert.equal(refusalDetail(apiError('INVALID_CREDENTIALS').body).fields, undefined);
  });

  it('checks what the live page asks for', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    assert.equal(liveProblem({ since: '2026-01-01T12:00:00Z' }, now), undefined);
    assert.equal(liveProblem({ since: 'yesterday' }, now)?.field, 'since');
    assert.equal(liveProblem({ since: '2025-12-30T00:00:00Z' }, now)?.field, 'since');
    assert.equal(liveProblem({ since: '2026-01-01T12:00:00Z', only: 'all' }, now)?.field, 'only');
    assert.equal(
      liveProblem({ since: '2026-01-01T12:00:00Z', filter: 'x'.repeat(201) }, now)?.field,
      'filter',
    );
  });
});
