/**
 * Issue 61, Medium 1: a URL credential is redacted ahead of routing, so a path that does not
 * route (a plain 404) records and logs it no more than a routed one. Checked on what reaches
 * `gateway_refusals` (the refusal recorder with a capturing insertAll), the events handed to the
 * recorder, the log lines and the answers.
 */
import assert from 'node:assert/strict';
import type { InsertAll } from '../../adapters/bigquery-writer.ts';
import { createRefusalRecorder, type RefusalRecorder } from '../../adapters/refusal-recorder.ts';
import type { RefusalEvent } from '../../core/console/live-events.ts';
import { fixedTranslators, loggingGateway, post, type TestGateway } from './support.ts';

const forms = {
  event: 'lead',
  format: { type: 'json' },
  auth: { url_token: true },
  fields: [{ target: 'user.email', source: 'email' }],
};

describe('gateway: a URL credential is redacted on every path, routed or not (issue 61)', () => {
  let g: TestGateway;
  let logged: Record<string, unknown>[];
  let recorder: RefusalRecorder;
  const events: RefusalEvent[] = [];
  const rows: Record<string, unknown>[] = [];
  let token: string;
  /** What follows the public id: the secret part of the token. */
  let secret: string;

  beforeEach(async () => {
    events.length = 0;
    rows.length = 0;
    const insertAll: InsertAll = async (_table, batch) => {
      rows.push(...batch.map((r) => r.json));
      return [];
    };
    // Every refusal a row: no sampling, so each shape below is written.
    recorder = createRefusalRecorder({
      insertAll,
      sampling: { perSecond: 1000, burst: 1000, perKindMs: 0, maxKinds: 1000 },
      flushMs: 60_000,
    });
    ({ g, logged } = await loggingGateway({
      translators: fixedTranslators({ forms }),
      refusals: {
        record: (e) => {
          events.push(e);
          recorder.record(e);
        },
      },
    }));
    token = await g.mint(['translate:forms']);
    secret = token.slice('ebt_'.length + 13);
  });
  afterEach(async () => {
    await recorder.close();
    await g.close();
  });

  /** Everything the gateway kept or said about the requests: no part of the secret in it. */
  async function assertNothingLeaked(answers: readonly unknown[]) {
    await recorder.flush();
    for (const [what, kept] of [
      ['refusal rows', rows],
      ['refusal events', events],
      ['log lines', logged],
      ['answers', answers],
    ] as const) {
      const text = JSON.stringify(kept);
      assert.ok(!text.includes(secret), `${what} hold the secret: ${text}`);
      for (let i = 0; i + 12 <= secret.length; i += 6)
        assert.ok(!text.includes(secret.slice(i, i + 12)), `${what} hold part of the secret: ${text}`);
    }
  }

  const unrouted = [
    ['a trailing slash', (t: string) => `/v1/translators/forms/${t}/`],
    ['a .json suffix', (t: string) => `/v1/translators/forms/${t}.json`],
    ['a double slash', (t: string) => `/v1/translators/forms//${t}`],
    ['a double slash in front', (t: string) => `//v1/translators/forms/${t}`],
    ['an upper-case name', (t: string) => `/v1/translators/FORMS/${t}`],
    ['an upper-case prefix', (t: string) => `/V1/Translators/forms/${t}`],
    ['a percent-encoded token', (t: string) => `/v1/translators/forms/%65${t.slice(1)}`],
    ['a token under another path', (t: string) => `/v1/topics/${t}`],
  ] as const;

  for (const [shape, path] of unrouted) {
    it(`${shape}: a 404 whose record, logs and answer hold no part of the token`, async () => {
      const a = await post(`${g.url}${path(token)}`, { email: 'a@b.example' });
      assert.equal(a.status, 404);
      assert.equal(events.length, 1);
      assert.equal(events[0]?.code, 'NOT_FOUND');
      assert.match(String(events[0]?.path), /\[redacted\]/);
      await assertNothingLeaked([a.body]);
      assert.equal(rows.length, 1, 'the refusal reaches gateway_refusals');
    });
  }

  it('a credential in a query parameter of an unrouted path is not shown either', async () => {
    const answers = [];
    for (const query of [`key=${token}`, `token=${token}`, `access_token=${token}`, `x=${token}`]) {
      const a = await post(`${g.url}/v1/translators/forms/?${query}`, { email: 'a@b.example' });
      assert.equal(a.status, 404, query);
      answers.push(a.body);
    }
    await assertNothingLeaked(answers);
  });

  it('the routed path: its refusals are recorded redacted, and the token still works there', async () => {
    const bad = await post(`${g.url}/v1/translators/forms/${token}`, 'not json', {}, true);
    assert.equal(bad.status, 400);
    const wrong = await post(`${g.url}/v1/translators/forms/${token.slice(0, -4)}AAAA`, {});
    assert.equal(wrong.status, 401);
    assert.deepEqual(
      events.map((e) => e.path),
      ['/v1/translators/forms/[redacted]', '/v1/translators/forms/[redacted]'],
    );
    await assertNothingLeaked([bad.body, wrong.body]);
    assert.equal(
      (await post(`${g.url}/v1/translators/forms/${token}`, { email: 'a@b.example' })).status,
      200,
    );
  });
});
