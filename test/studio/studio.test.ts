/**
 * The studio's admin API and the CLI's resource commands (`apply -f`, `list`, `get`, `history`,
 * `delete`) on a registry bucket in the Cloud Storage emulator: what a user applies from YAML is
 * versioned, a dry run changes nothing, bad documents are refused naming the field, the built-in
 * catalogue cannot be redefined, a racing apply gets 409, and nothing works without the token.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegistryClient } from '../../adapters/registry.ts';
import { run } from '../../cli/main.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { startStudio } from '../../studio/server.ts';

const TOKEN = 'test-admin-token-0123456789';

const QUOTES = `kind: EventDefinition
name: quote_requested
description: A visitor asked for a quote.
owner: sales-ops@acme.example
spec:
  fields:
    - { name: amount, type: number, required: true }
---
kind: Translator
name: quotes_csv
spec:
  event: quote_requested
  format: { type: csv }
  fields:
    - { target: amount, source: Amount, transforms: [{ decimal: "," }] }
`;

describe('studio admin API and `eventbus apply`', () => {
  const fx = emulatorWithFreshBuckets('studio-registry');
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let dir: string;
  const saved = { url: process.env.EVENTBUS_STUDIO_URL, token: process.env.EVENTBUS_ADMIN_TOKEN };

  beforeEach(async () => {
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      adminName: 'ana',
    });
    process.env.EVENTBUS_STUDIO_URL = studio.url;
    process.env.EVENTBUS_ADMIN_TOKEN = TOKEN;
    dir = mkdtempSync(join(tmpdir(), 'studio-test-'));
  });
  afterEach(async () => {
    await studio.close();
    rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of [
      ['EVENTBUS_STUDIO_URL', saved.url],
      ['EVENTBUS_ADMIN_TOKEN', saved.token],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  }

  it('applies a YAML file of several documents, versions changes, and reads them back', async () => {
    const file = join(dir, 'quotes.yaml');
    writeFileSync(file, QUOTES);
    const first = await cli('apply', '-f', file);
    assert.equal(first.code, 0, first.err);
    assert.equal(
      first.out,
      'EventDefinition/quote_requested created 1.0\nTranslator/quotes_csv created 1.0\n',
    );
    assert.match((await cli('apply', '-f', file)).out, /quote_requested unchanged 1\.0/);

    writeFileSync(file, QUOTES.replace('A visitor asked for a quote.', 'A quote request.'));
    const dry = await cli('apply', '-f', file, '--dry-run');
    assert.match(dry.out, /EventDefinition\/quote_requested would update 1\.1 \(was 1\.0\)/);
    // The dry run shows the change itself, as a diff from the current version.
    assert.match(dry.out, /^-description: A visitor asked for a quote\.\n\+description: A quote request\.$/m);
    assert.match(dry.out, /^--- EventDefinition\/quote_requested\t1\.0$/m);
    const diff = await cli('diff', '-f', file);
    assert.equal(diff.code, 1, 'diff exits 1 when something differs');
    assert.match(diff.out, /^\+description: A quote request\.$/m);
    assert.doesNotMatch(diff.out, /Translator\/quotes_csv/, 'unchanged resources are not listed');
    assert.match(diff.err, /1 of 2 resource\(s\) differ/);
    assert.match(
      (await cli('list', 'EventDefinition')).out,
      /^quote_requested\t1\.0\t/m,
      'a dry run changes nothing',
    );
    assert.match((await cli('apply', '-f', file)).out, /quote_requested updated 1\.1 \(was 1\.0\)/);

    assert.equal((await cli('diff', '-f', file)).code, 0, 'nothing differs once applied');
    const got = await cli('get', 'EventDefinition', 'quote_requested');
    assert.match(got.out, /^# EventDefinition\/quote_requested 1\.1, by ana at /m);
    assert.match(got.out, /^description: A quote request\.$/m);
    // The export applies back unchanged: every resource of a kind, as one YAML stream.
    const all = await cli('get', 'EventDefinition');
    assert.equal(all.out, got.out);
    writeFileSync(join(dir, 'export.yaml'), all.out);
    assert.match((await cli('apply', '-f', join(dir, 'export.yaml'))).out, /quote_requested unchanged 1\.1/);
    const history = await cli('history', 'EventDefinition', 'quote_requested');
    assert.deepEqual(
      history.out
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
      ['1.0', '1.1'],
    );
    assert.match(
      (await cli('delete', 'Translator', 'quotes_csv')).out,
      /Translator\/quotes_csv deleted 1\.0/,
    );
    const gone = await cli('get', 'Translator', 'quotes_csv');
    assert.equal(gone.code, 1);
    assert.match(gone.err, /Resource not found \(resource=Translator\/quotes_csv\)/);
  });

  it('`apply -f a -f b` applies every file, or none of them when one document is bad (issue #63)', async () => {
    const [definition, translator] = QUOTES.split('\n---\n');
    const a = join(dir, 'a.yaml');
    const b = join(dir, 'b.yaml');
    writeFileSync(a, definition as string);
    writeFileSync(b, `${translator}\n---\nkind: Translator\nname: Bad_Name\nspec: {}\n`);
    const refused = await cli('apply', '-f', a, '-f', b);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /Bad_Name|name/);
    assert.equal((await cli('get', 'EventDefinition', 'quote_requested')).code, 1, 'nothing applied');
    writeFileSync(b, translator as string);
    const both = await cli('apply', '-f', a, '-f', b);
    assert.equal(both.code, 0, both.err);
    assert.match(both.out, /EventDefinition\/quote_requested created 1\.0/);
    assert.match(both.out, /Translator\/quotes_csv created 1\.0/);
    assert.equal((await cli('diff', '-f', a, '-f', b)).code, 0, 'diff takes them together too');
    assert.equal((await cli('apply')).code, 1, 'a file is still required');
  });

  it('makes a new major version of a definition when a change breaks its readers, and says why', async () => {
    const file = join(dir, 'quotes.yaml');
    writeFileSync(file, QUOTES);
    await cli('apply', '-f', file);
    writeFileSync(
      file,
      QUOTES.replace('{ name: amount, type: number, required: true }', '{ name: amount, type: string }'),
    );
    const r = await cli('apply', '-f', file);
    assert.match(
      r.out,
      /EventDefinition\/quote_requested updated 2\.0 \(was 1\.0\), a new major version: amount changed type number → string/,
    );
    writeFileSync(file, QUOTES.replace('type: number', 'type: money'));
    const bad = await cli('apply', '-f', file);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /documents\[0\]\.spec\.fields\[0\]\.type: must be one of string, integer/);
  });

  it('refuses bad documents whole, naming each field, and never redefines the catalogue', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'kind: EventDefinition\nname: purchase\nspec: {}\n---\nkind: Widget\nname: x\nspec: {}\n---\nkind: Sync\nname: Bad Name\nspec: {}\n',
    );
    const r = await cli('apply', '-f', file);
    assert.equal(r.code, 1);
    assert.match(r.err, /Invalid resource documents; nothing was applied/);
    assert.match(r.err, /documents\[0\]\.name: purchase is a built-in catalogue event/);
    assert.match(r.err, /documents\[1\]\.kind/);
    assert.match(r.err, /documents\[2\]\.name: must match/);
    assert.deepEqual((await fx.bucket.getFiles())[0], [], 'nothing written');
  });

  it('answers without the token 401, a racing apply 409, in the gateway error envelope', async () => {
    const health = await fetch(`${studio.url}/health`);
    assert.equal(health.status, 200);
    const anonymous = await fetch(`${studio.url}/v1/admin/resources/EventDefinition`);
    assert.equal(anonymous.status, 401);
    const body = (await anonymous.json()) as { error: { status: string } };
    assert.equal(body.error.status, 'UNAUTHENTICATED');

    const post = (description: string) =>
      fetch(`${studio.url}/v1/admin/apply`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          documents: [{ kind: 'Query', name: 'daily', description, spec: { sql: 'SELECT 1' } }],
        }),
      });
    assert.equal((await post('first')).status, 200);
    const answers = await Promise.all([post('a'), post('b'), post('c')]);
    const statuses = answers.map((a) => a.status).sort();
    assert.equal(statuses[0], 200);
    assert.ok(statuses.includes(409), `statuses ${statuses}`);
    const race = answers.find((a) => a.status === 409);
    const e = (await race?.json()) as { error: { status: string; message: string } };
    assert.equal(e.error.status, 'ABORTED');
    assert.match(e.error.message, /Another apply changed the registry first/);
  });

  it('`rule test` shows which events would fire a rule and what it would publish, applying once_per across the file', async () => {
    const rule = join(dir, 'rule.yaml');
    writeFileSync(
      rule,
      [
        'kind: Rule',
        'name: big-orders',
        'spec:',
        '  trigger: { event: { names: [purchase], all: [{ field: value, op: gt, value: 500 }] } }',
        '  once_per: { key: user_id, period: 1d }',
        '  actions:',
        '    - publish: { event_name: high_value_customer, fields: { order_value: value } }',
        '',
      ].join('\n'),
    );
    assert.equal((await cli('apply', '-f', rule)).code, 0);
    const events = join(dir, 'events.ndjson');
    const p = (id: string, user: string, value: number) =>
      JSON.stringify({
        event_name: 'purchase',
        event_id: id,
        event_time: '2026-11-22T10:00:00Z',
        user_id: user,
        transaction_id: id,
        value,
        currency: 'EUR',
      });
    writeFileSync(
      events,
      [p('p1', 'ana', 600), p('p2', 'ana', 900), p('p3', 'ben', 100), '{"event_name":"purchase"}'].join('\n'),
    );
    const r = await cli('rule', 'test', 'big-orders', '--event', events);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split('\n');
    assert.match(
      lines[0] ?? '',
      /^event 1 \(purchase p1\): fires \(user_id ana, 2026-11-22T00:00:00.000Z\)$/,
    );
    assert.match(
      lines[1] ?? '',
      /^ {2}publish events: \{"event_name":"high_value_customer","event_id":"[0-9a-f]{64}","event_time":"2026-11-22T10:00:00.000Z","user_id":"ana","order_value":600\}$/,
    );
    assert.match(lines[2] ?? '', /^event 2 \(purchase p2\): skipped: already fired for user_id ana/);
    assert.equal(lines[3], 'event 3 (purchase p3): does not fire');
    assert.match(lines[4] ?? '', /^event 4: invalid, not stored: .*transaction_id/);
    assert.equal(lines[5], '1 of 4 event(s) would fire big-orders 1.0; nothing was sent');
  });
});
