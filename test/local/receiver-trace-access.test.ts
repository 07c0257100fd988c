/**
 * The local receiver enforces Cloud Trace's grants (local/receiver/trace-access.ts) under the
 * policies `pulumi up` binds for environments/local.yaml (infra/access-plan.ts, declared offline):
 * the studio reads a trace (roles/cloudtrace.user), on its own port as the studio's reader calls
 * and with a token; the gateway and `store` may write spans (roles/cloudtrace.agent) but not read
 * them (403, with Google's ErrorInfo); a call without credentials, or with a token that does not
 * verify, is 401; the studio may not write spans.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTraceReader } from '../../adapters/trace-reader.ts';
import { type Workload, workloadMember } from '../../core/access/needs.ts';
import { accessFilePath, localToken, plannedPolicies, writeAccessFile } from '../../local/access-file.ts';
import { type Receiver, startReceiver } from '../../local/receiver/server.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const PROJECT = 'local-project';
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const V1 = `/v1/projects/${PROJECT}/traces/${TRACE}`;

/** One OTLP/JSON export of a single span of TRACE by `service`. */
const exportOf = (service: string, spanId: string) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
        scopeSpans: [
          {
            spans: [
              {
                traceId: TRACE,
                spanId,
                name: `${service}.work`,
                kind: 2,
                startTimeUnixNano: '1700000000000000000',
                endTimeUnixNano: '1700000000010000000',
              },
            ],
          },
        ],
      },
    ],
  });

describe('local: the receiver enforces the trace grants pulumi up gives', function () {
  this.timeout(60_000);
  let dir: string;
  let receiver: Receiver;
  const member = (w: Workload) => workloadMember(w, PROJECT);
  const portOf = (w: Workload) => `http://127.0.0.1:${receiver.identityPorts.get(member(w))}`;
  const tokenOf = (w: Workload) => ({ authorization: `Bearer ${localToken(dir, w, PROJECT)}` });
  const post = (base: string, service: string, spanId: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: exportOf(service, spanId),
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'receiver-trace-access-'));
    const policies = await plannedPolicies(
      process.execPath,
      REPO_ROOT,
      join(REPO_ROOT, 'environments', 'local.yaml'),
    );
    writeAccessFile(dir, policies);
    receiver = await startReceiver({
      webhooks: [],
      signingKey: async () => undefined,
      project: PROJECT,
      iam: {
        file: accessFilePath(dir),
        identities: (['gateway', 'store', 'studio'] as const).map((w) => ({ member: member(w), port: 0 })),
      },
    });
  });
  after(async () => {
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spans written on the gateway’s and store’s own ports, or with their token, are kept', async () => {
    assert.equal((await post(portOf('gateway'), 'gateway', '00f067aa0ba902b7')).status, 200);
    assert.equal((await post(portOf('store'), 'store', '00f067aa0ba902b8')).status, 200);
    assert.equal((await post(receiver.url, 'store', '00f067aa0ba902b9', tokenOf('store'))).status, 200);
    assert.deepEqual(
      receiver.traces.spans(TRACE).map((s) => s.service),
      ['gateway', 'store', 'store'],
    );
  });

  it('the studio reads the trace through v1, on its own port as its reader calls, and with its token', async () => {
    const read = await createTraceReader({ endpoint: portOf('studio') })(PROJECT, TRACE);
    assert.ok(read.ok, JSON.stringify(read));
    assert.equal(read.trace.spans.length, 3);
    const withToken = await fetch(`${receiver.url}${V1}`, { headers: tokenOf('studio') });
    assert.equal(withToken.status, 200);
    const list = await fetch(`${receiver.url}/traces.json?trace_id=${TRACE}`, { headers: tokenOf('studio') });
    assert.equal(((await list.json()) as { spans: unknown[] }).spans.length, 3);
  });

  it('the gateway and store may not read it: 403 PERMISSION_DENIED naming the permission', async () => {
    for (const w of ['gateway', 'store'] as const) {
      const read = await createTraceReader({ endpoint: portOf(w) })(PROJECT, TRACE);
      assert.deepEqual(read.ok ? 'read' : [read.http, read.status], [403, 'PERMISSION_DENIED'], w);
      const res = await fetch(`${receiver.url}${V1}`, { headers: tokenOf(w) });
      assert.equal(res.status, 403, w);
      const { error } = (await res.json()) as {
        error: {
          code: number;
          status: string;
          details: { reason: string; metadata: Record<string, string> }[];
        };
      };
      assert.equal(error.code, 403);
      assert.equal(error.details[0]?.reason, 'IAM_PERMISSION_DENIED');
      assert.deepEqual(error.details[0]?.metadata, {
        permission: 'cloudtrace.traces.get',
        resource: `projects/${PROJECT}`,
        principal: member(w),
      });
      const list = await fetch(`${receiver.url}/traces.json`, { headers: tokenOf(w) });
      assert.equal(list.status, 403, `${w} lists`);
    }
  });

  it('no credentials, or a token that does not verify: 401 UNAUTHENTICATED, for reads and writes', async () => {
    const bare = await fetch(`${receiver.url}${V1}`);
    assert.equal(bare.status, 401);
    assert.equal(((await bare.json()) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
    assert.equal((await fetch(`${receiver.url}/traces.json`)).status, 401);
    const forged = { authorization: 'Bearer ya29.local.e30.bm90LWEtbWFj' };
    assert.equal((await fetch(`${receiver.url}${V1}`, { headers: forged })).status, 401);
    assert.equal((await post(receiver.url, 'store', '00f067aa0ba902ba')).status, 401);
    assert.equal((await post(receiver.url, 'store', '00f067aa0ba902bb', forged)).status, 401);
    assert.equal(receiver.traces.spans(TRACE).length, 3, 'no refused span was kept');
    assert.equal(receiver.traces.taken(), 3, 'nor counted as taken');
  });

  it('the studio may not write spans: 403 (it holds roles/cloudtrace.user, not the agent role)', async () => {
    const res = await post(portOf('studio'), 'studio', '00f067aa0ba902bc');
    assert.equal(res.status, 403);
    assert.equal(receiver.traces.spans(TRACE).length, 3);
  });

  it('the receiver page and webhooks stay open: only traces are Cloud Trace’s', async () => {
    assert.equal((await fetch(`${receiver.url}/received.json`)).status, 200);
    assert.equal((await fetch(`${receiver.url}/health`)).status, 200);
  });
});
