/**
 * The studio as a hardened web app (issue #33, docs/security.md#the-studio), over real HTTP with a
 * registry bucket in the Cloud Storage emulator: cross-site writes refused (the red team's
 * `text/plain` apply from https://evil.example), JSON only on state-changing calls, `nosniff` on
 * every answer, client errors (malformed paths, `__proto__`/`constructor` names) answered 4xx and
 * never logged as ERROR, and slow bodies cut with 408 and the connection closed. Tokens made in the
 * studio: test/studio/tokens.test.ts.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { RegistryClient } from '../../adapters/registry.ts';
import { run } from '../../cli/main.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { startStudio } from '../../studio/server.ts';

const TOKEN = 'hardening-admin-token-0123456789';
const QUERY = { kind: 'Query', name: 'daily', spec: { sql: 'SELECT 1' } };

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

describe('studio hardening: the admin API as a web app', () => {
  const fx = emulatorWithFreshBuckets('studio-hardening');
  let studio: Awaited<ReturnType<typeof startStudio>>;
  let logged: Record<string, unknown>[];

  beforeEach(async () => {
    logged = [];
    studio = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      adminName: 'ana',
      assets: new Map([
        ['/index.html', { type: 'text/html; charset=utf-8', body: Buffer.from('<p>hi</p>') }],
      ]),
      bodyTimeoutMs: 300,
      log: (e) => logged.push(e),
    });
  });
  afterEach(async () => {
    await studio.close();
  });

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const res = await fetch(`${studio.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  }
  const listed = async (kind: string) =>
    ((await call('GET', `/v1/admin/resources/${kind}`)).body['resources'] as { name: string }[]).map(
      (r) => r.name,
    );
  const reason = (a: Answer) =>
    ((a.body['error'] as { details: { reason?: string }[] }).details[0] as { reason: string }).reason;

  it('refuses an apply sent as text/plain from https://evil.example (403), and applies nothing', async () => {
    const forged = await call('POST', '/v1/admin/apply', JSON.stringify({ documents: [QUERY] }), {
      'content-type': 'text/plain',
      origin: 'https://evil.example',
    });
    assert.equal(forged.status, 403, JSON.stringify(forged.body));
    assert.match(JSON.stringify(forged.body), /origin https:\/\/evil\.example is not the studio's/);
    // Even as JSON, and even naming the studio in a header a page cannot add to a simple request.
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ]) {
      const a = await call('POST', '/v1/admin/apply', { documents: [QUERY] }, headers);
      assert.equal(a.status, 403, JSON.stringify(headers));
    }
    const del = await call('DELETE', '/v1/admin/resources/Query/daily', undefined, {
      origin: 'https://evil.example',
    });
    assert.equal(del.status, 403);
    assert.deepEqual(await listed('Query'), []);
    assert.ok(logged.some((e) => e['severity'] === 'WARNING' && /evil\.example/.test(String(e['message']))));
  });

  it("takes writes from the studio's own origin, behind a proxy by X-Forwarded-Host, and from the CLI (no Origin)", async () => {
    const own = await call('POST', '/v1/admin/apply', { documents: [QUERY] }, { origin: studio.url });
    assert.equal(own.status, 200, JSON.stringify(own.body));
    const proxied = await call(
      'POST',
      '/v1/admin/apply',
      { documents: [{ ...QUERY, name: 'weekly' }] },
      {
        origin: 'https://studio.acme.example',
        'x-forwarded-host': 'studio.acme.example',
        'sec-fetch-site': 'same-origin',
      },
    );
    assert.equal(proxied.status, 200, JSON.stringify(proxied.body));
    // The default port of the origin's scheme is the same host.
    const port = await call(
      'POST',
      '/v1/admin/apply',
      { documents: [{ ...QUERY, name: 'monthly' }] },
      { origin: 'https://studio.acme.example', 'x-forwarded-host': 'studio.acme.example:443' },
    );
    assert.equal(port.status, 200, JSON.stringify(port.body));
    // A proxy that rewrites Host and says nothing: its origin is named (EVENTBUS_STUDIO_ORIGINS).
    const named = await startStudio({
      registry: new RegistryClient(fx.bucket),
      adminToken: TOKEN,
      origins: ['http://localhost:8080'],
    });
    try {
      const apply = (origin: string) =>
        fetch(`${named.url}/v1/admin/apply`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', origin },
          body: JSON.stringify({ documents: [{ ...QUERY, name: 'yearly' }], dryRun: true }),
        });
      assert.equal((await apply('http://localhost:8080')).status, 200);
      assert.equal((await apply('http://localhost:8081')).status, 403);
    } finally {
      await named.close();
    }
    // The CLI's client (cli/commands/resources.ts) sends no Origin.
    process.env.EVENTBUS_STUDIO_URL = studio.url;
    process.env.EVENTBUS_ADMIN_TOKEN = TOKEN;
    try {
      let out = '';
      let err = '';
      const code = await run(['delete', 'Query', 'weekly'], {
        out: (t) => (out += t),
        err: (t) => (err += t),
      });
      assert.equal(code, 0, err);
      assert.match(out, /Query\/weekly deleted/);
    } finally {
      delete process.env.EVENTBUS_STUDIO_URL;
      delete process.env.EVENTBUS_ADMIN_TOKEN;
    }
    assert.deepEqual((await listed('Query')).sort(), ['daily', 'monthly', 'weekly']);
  });

  it('takes only JSON bodies on state-changing calls: other types 415, application/json and +json accepted', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      '',
    ]) {
      const a = await call('POST', '/v1/admin/apply', JSON.stringify({ documents: [QUERY] }), {
        'content-type': type,
      });
      assert.equal(a.status, 415, type);
      assert.equal(reason(a), 'UNSUPPORTED_MEDIA_TYPE');
    }
    const del = await call('DELETE', '/v1/admin/resources/Query/daily', 'x', {
      'content-type': 'text/plain',
    });
    assert.equal(del.status, 415);
    assert.deepEqual(await listed('Query'), []);
    const json = await call(
      'POST',
      '/v1/admin/apply',
      { documents: [QUERY] },
      {
        'content-type': 'application/json; charset=utf-8',
      },
    );
    assert.equal(json.status, 200);
    const suffixed = await call(
      'POST',
      '/v1/admin/apply',
      { documents: [{ ...QUERY, name: 'other' }] },
      {
        'content-type': 'application/vnd.eventbus+json',
      },
    );
    assert.equal(suffixed.status, 200, JSON.stringify(suffixed.body));
  });

  it('says nosniff on every answer: pages, API answers, refusals, unparseable requests', async () => {
    const answers = [
      await fetch(`${studio.url}/index.html`),
      await fetch(`${studio.url}/health`),
      await fetch(`${studio.url}/nothing`),
      await fetch(`${studio.url}/v1/admin/resources/Query`),
      await fetch(`${studio.url}/v1/admin/resources/Query`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
      await fetch(`${studio.url}/v1/admin/apply`, {
        method: 'POST',
        body: 'x',
        headers: { 'content-type': 'text/plain' },
      }),
    ];
    for (const res of answers) assert.equal(res.headers.get('x-content-type-options'), 'nosniff', res.url);
    const raw = await rawExchange(studio.port, 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    assert.match(raw.text, /^HTTP\/1\.1 400/);
    assert.match(raw.text, /x-content-type-options: nosniff/i);
  });

  it('answers a path with malformed percent-encoding 400 before authentication, logged as no ERROR', async () => {
    for (const path of ['/v1/admin/resources/Query/%E0%A4%A', '/v1/admin/%', '/%zz']) {
      const res = await fetch(`${studio.url}${path}`);
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(await res.text(), /percent-encoding/);
    }
    assert.deepEqual(
      logged.filter((e) => e['severity'] === 'ERROR'),
      [],
    );
  });

  it('applies, reads and deletes a Query named constructor; refuses __proto__ naming the rule; no phantom on DELETE', async () => {
    const applied = await call('POST', '/v1/admin/apply', { documents: [{ ...QUERY, name: 'constructor' }] });
    assert.equal(applied.status, 200, JSON.stringify(applied.body));
    assert.equal((applied.body['changes'] as { change: string; version: string }[])[0]?.change, 'created');
    const got = await call('GET', '/v1/admin/resources/Query/constructor');
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(got.body['version'], '1.0');
    assert.equal((await call('GET', '/v1/admin/resources/Query/constructor/history')).status, 200);
    for (const path of ['Query/prototype', 'Rule/constructor', 'Translator/constructor']) {
      const missing = await call('GET', `/v1/admin/resources/${path}`);
      assert.equal(missing.status, 404, path);
      const history = await call('GET', `/v1/admin/resources/${path}/history`);
      assert.deepEqual(history.body['versions'], [], path);
      const del = await call('DELETE', `/v1/admin/resources/${path}`);
      assert.equal(del.status, 404, path);
    }
    assert.deepEqual(await listed('Query'), ['constructor'], 'no phantom index entries');
    assert.deepEqual(await listed('Rule'), []);
    assert.deepEqual(await listed('Translator'), []);
    for (const path of [
      '/v1/admin/resources/Query/__proto__',
      '/v1/admin/resources/EventDefinition/constructor%2Fx',
    ]) {
      const bad = await call('DELETE', path);
      assert.equal(bad.status, 400, path);
      assert.match(JSON.stringify(bad.body), /must match/);
    }
    assert.equal((await call('DELETE', '/v1/admin/resources/Query/constructor')).status, 200);
    assert.deepEqual(
      logged.filter((e) => e['severity'] === 'ERROR'),
      [],
    );
  });

  it('cuts a body that has not arrived in time with 408 and closes the connection', async () => {
    const head = `POST /v1/admin/apply HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"documents":`;
    const raw = await rawExchange(studio.port, head);
    assert.match(raw.text, /^HTTP\/1\.1 408/);
    assert.match(raw.text, /connection: close/i);
    assert.ok(raw.closed, 'the studio closed the connection');
    // A write refused before its body is read is answered at once, and the rest not waited for.
    const forged = await rawExchange(
      studio.port,
      head.replace('\r\n\r\n', '\r\nOrigin: https://evil.example\r\n\r\n'),
    );
    assert.match(forged.text, /^HTTP\/1\.1 403/);
    assert.ok(forged.closed);
    assert.ok(logged.some((e) => e['severity'] === 'WARNING' && e['status'] === 408));
  });
});

/** Sends raw bytes and collects what comes back until the studio closes the connection (or 5 s). */
function rawExchange(port: number, text: string): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let got = '';
    const give = setTimeout(() => {
      socket.destroy();
      resolve({ text: got, closed: false });
    }, 5000);
    socket.on('data', (d) => (got += d.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(give);
      resolve({ text: got, closed: true });
    });
  });
}
