/**
 * Column-level security on the local environment (issue #76): `pii.column_security: true`, so the
 * warehouse's PII columns carry the program's `pii` tag and the BigQuery emulator enforces its
 * SHA-256 rule and grants as BigQuery does. A person's event and a refused message holding their
 * e-mail are stored; then, each as its own service account (`eventbus local token --as`):
 *
 * - the studio, a Masked Reader, reads the e-mail as its SHA-256 and its payload search finds
 *   nothing: what made the studio's `export-person` answer hashes in the cloud;
 * - the scheduler, a Fine-Grained Reader, reads both raw;
 * - the store, neither, is refused with BigQuery's policy-tag error;
 * - the studio's `export-person` refuses with the documented reason (docs/privacy.md) instead of
 *   answering hashes, and `eventbus export-person` (the operator's own access) returns the real
 *   e-mail.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import { localToken } from '../../local/access-file.ts';
import { adminCall } from '../support/admin-call.ts';
import * as env from '../support/local-start.ts';
import { until } from '../support/until.ts';

const PROJECT = 'local-project';
/** SHA-256 as BigQuery's masking rule answers a STRING column: the digest's base64. */
const masked = (text: string) => createHash('sha256').update(text).digest('base64');

describe('end to end: column-level security and data masking on the local environment (issue #76)', function () {
  this.timeout(300_000);
  let local: env.StartedLocal;
  let owner: BigQuery;
  const tag = `cs${Date.now().toString(36)}`;
  const email = `ann.${tag}@example.com`;
  const user = `user-${tag}`;

  before(async () => {
    local = await env.startLocalCli({
      prefix: 'eventbus-column-security-',
      settings: env.localSettingsWith('column-security.yaml', '\npii:\n  column_security: true\n'),
    });
    owner = await env.localBigQuery(local.ports);
  });
  after(() => env.stopLocalCli(local));

  /** A query as a workload's service account: its rows, or its refusal. */
  const queryAs = async (who: string, sql: string) => {
    const res = await fetch(
      `http://127.0.0.1:${local.ports['bigquery']}/bigquery/v2/projects/${PROJECT}/queries`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${localToken(local.dataDir, who, PROJECT)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ query: sql, useLegacySql: false }),
      },
    );
    const json = (await res.json()) as {
      rows?: { f: { v: unknown }[] }[];
      error?: { message: string };
    };
    return {
      status: res.status,
      values: (json.rows ?? []).map((r) => r.f[0]?.v),
      error: json.error?.message,
    };
  };
  const events = `\`${PROJECT}.events.events\``;
  const invalid = `\`${PROJECT}.events.invalid_events\``;
  const emailOf = `SELECT user.email FROM ${events} WHERE user_id = '${user}'`;
  const payloadSearch = `SELECT COUNT(*) FROM ${invalid} WHERE STRPOS(LOWER(payload), '"${email}"') > 0`;

  it('stores the person; the studio reads SHA-256, the scheduler raw, the store is refused; export-person says why it cannot', async () => {
    await env.publishEvent(local, 'sign_up', {
      event_id: `${tag}-1`,
      anonymous_id: `anon-${tag}`,
      user_id: user,
      user: { email },
    });
    // A message the store refuses (no event_name): kept whole in invalid_events.payload.
    const refusedMessage = { event_id: `${tag}-2`, user: { email } };
    const published = await fetch(
      `http://127.0.0.1:${local.ports['pubsub']}/v1/projects/${PROJECT}/topics/events:publish`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          messages: [{ data: Buffer.from(JSON.stringify(refusedMessage)).toString('base64') }],
        }),
      },
    );
    assert.equal(published.status, 200, await published.text());
    const count = async (sql: string) =>
      Number(((await owner.query({ query: sql }))[0] as { n: number }[])[0]?.n);
    await until(
      'the event and the refused message stored',
      async () =>
        (await count(`SELECT COUNT(*) AS n FROM ${events} WHERE user_id = '${user}'`)) === 1 &&
        (await count(`SELECT COUNT(*) AS n FROM ${invalid} WHERE event_id = '${tag}-2'`)) === 1
          ? true
          : undefined,
      60_000,
    );
    // The tables carry the program's tag (provisioned from what `pulumi up` declares).
    const [meta] = await owner.dataset('events').table('events').getMetadata();
    const userField = (
      meta as { schema: { fields: { name: string; fields?: { name: string; policyTags?: unknown }[] }[] } }
    ).schema.fields.find((f) => f.name === 'user');
    assert.ok(userField?.fields?.find((f) => f.name === 'email')?.policyTags, JSON.stringify(userField));

    // The studio is a Masked Reader: the e-mail is its SHA-256, and the payload search finds nothing.
    const studio = await queryAs('studio', emailOf);
    assert.equal(studio.status, 200, studio.error);
    assert.deepEqual(studio.values, [masked(email)]);
    assert.deepEqual((await queryAs('studio', payloadSearch)).values, ['0']);
    // The scheduler is a Fine-Grained Reader: raw.
    assert.deepEqual((await queryAs('schedule', emailOf)).values, [email]);
    assert.deepEqual((await queryAs('schedule', payloadSearch)).values, ['1']);
    // The store holds neither role: refused, with BigQuery's message naming the tag and column.
    const store = await queryAs('store', `SELECT * FROM ${events} WHERE user_id = '${user}'`);
    assert.equal(store.status, 403);
    assert.match(
      store.error ?? '',
      /^Access Denied: BigQuery BigQuery: User does not have permission to access policy tag projects\/local-project\/locations\/eu\/taxonomies\/\d+\/policyTags\/\d+ on columns local-project\.events\.events\.user\.email, /,
    );

    // The studio does not answer hashes for a person's data: it refuses, saying why and what to run.
    const adminToken = readFileSync(join(local.dataDir, 'admin-token'), 'utf8').trim();
    const exported = await adminCall<{ error?: { message: string; status: string } }>(
      `http://127.0.0.1:${local.ports['studio']}`,
      adminToken,
      'export-person',
      { identifiers: [`email:${email}`, `user_id:${user}`] },
    );
    assert.equal(exported.status, 400, JSON.stringify(exported.json));
    assert.equal(exported.json.error?.status, 'FAILED_PRECONDITION');
    assert.match(exported.json.error?.message ?? '', /pii\.column_security/);
    assert.match(exported.json.error?.message ?? '', /eventbus export-person/);
    assert.ok(!JSON.stringify(exported.json).includes(masked(email)));

    // The CLI runs with the operator's own access (locally the emulators' owner; in the cloud a
    // member of pii_readers): the real e-mail, and the refused message found by it.
    const out = await env.eventbusIn(local.dataDir)(
      'export-person',
      `email:${email}`,
      `user_id:${user}`,
      '--requested-by',
      'dpo@example.com',
    );
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { table: string; row: Record<string, unknown> });
    const event = lines.find((l) => l.table === 'events.events');
    assert.equal((event?.row['user'] as { email?: string } | undefined)?.email, email, out);
    assert.ok(
      lines.some((l) => l.table === 'events.invalid_events' && String(l.row['payload']).includes(email)),
      out,
    );
  });
});
