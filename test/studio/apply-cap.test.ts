/**
 * One apply holds at most MAX_APPLY_DOCUMENTS resources and MAX_APPLY_BYTES of documents (issue
 * #61, red team: an apply took any number of resources in one request). Over either cap the
 * studio answers 400 in Google's envelope naming the cap, at a dry run as at an apply, and nothing
 * is written; at the cap it applies. Through HTTP on a registry bucket in the Cloud Storage
 * emulator; the pure check is core/registry/resources.ts's applyViolations.
 */
import assert from 'node:assert/strict';
import { RegistryClient } from '../../adapters/registry.ts';
import {
  applyViolations,
  MAX_APPLY_BYTES,
  MAX_APPLY_DOCUMENTS,
  QUERY_MAX_CHARS,
} from '../../core/registry/resources.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { startStudio } from '../../studio/server.ts';

const TOKEN = 'apply-cap-admin-token-0123456789';
const query = (i: number, sql = 'SELECT 1') => ({ kind: 'Query', name: `q${i}`, spec: { sql } });
const queries = (n: number, sql?: string) => Array.from({ length: n }, (_, i) => query(i, sql));

interface Refusal {
  error: {
    code: number;
    status: string;
    details?: { fieldViolations?: { field: string; description: string }[] }[];
  };
}

describe('studio: the cap on resources per apply (issue #61)', function () {
  this.timeout(60_000);
  const fx = emulatorWithFreshBuckets('studio-apply-cap');
  let studio: Awaited<ReturnType<typeof startStudio>>;

  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      adminName: 'ana',
    });
  });
  afterEach(async () => {
    await studio.close();
  });

  async function apply(documents: unknown[], dryRun = false): Promise<{ status: number; body: unknown }> {
    const res = await fetch(`${studio.url}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents, dryRun }),
    });
    return { status: res.status, body: await res.json() };
  }

  async function stored(): Promise<number> {
    const res = await fetch(`${studio.url}/v1/admin/resources/Query`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const body = (await res.json()) as { resources?: unknown[] } | unknown[];
    return Array.isArray(body) ? body.length : (body.resources?.length ?? 0);
  }

  const violation = (body: unknown) =>
    (body as Refusal).error.details?.find((d) => d.fieldViolations)?.fieldViolations?.[0];

  for (const dryRun of [true, false])
    it(`refuses ${MAX_APPLY_DOCUMENTS + 1} resources with a 400 naming the cap${dryRun ? ' (dry run)' : ''}, writing nothing`, async () => {
      const { status, body } = await apply(queries(MAX_APPLY_DOCUMENTS + 1), dryRun);
      assert.equal(status, 400);
      assert.equal((body as Refusal).error.status, 'INVALID_ARGUMENT');
      assert.equal(violation(body)?.field, 'documents');
      assert.match(
        violation(body)?.description ?? '',
        new RegExp(`at most ${MAX_APPLY_DOCUMENTS} resources`),
      );
      assert.equal(await stored(), 0);
    });

  it('refuses documents over the byte cap with a 400 naming it, writing nothing', async () => {
    const big = 'SELECT 1 -- '.padEnd(QUERY_MAX_CHARS, 'x');
    const n = Math.ceil(MAX_APPLY_BYTES / QUERY_MAX_CHARS) + 1;
    const { status, body } = await apply(queries(n, big));
    assert.equal(status, 400);
    assert.equal(violation(body)?.field, 'documents');
    assert.match(violation(body)?.description ?? '', /at most 2 MiB/);
    assert.equal(await stored(), 0);
  });

  it(`applies ${MAX_APPLY_DOCUMENTS} resources, the cap`, async () => {
    const { status } = await apply(queries(MAX_APPLY_DOCUMENTS));
    assert.equal(status, 200);
    assert.equal(await stored(), MAX_APPLY_DOCUMENTS);
  });

  it('the pure check: one violation on `documents` past the cap, none at it', () => {
    assert.deepEqual(applyViolations(queries(MAX_APPLY_DOCUMENTS)), []);
    const over = applyViolations(queries(MAX_APPLY_DOCUMENTS * 50));
    assert.equal(over.length, 1);
    assert.equal(over[0]?.field, 'documents');
  });
});
