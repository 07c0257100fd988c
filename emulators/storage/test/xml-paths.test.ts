/**
 * The XML API's paths as raw HTTP sees them (server.ts, signed.ts, post-policy.ts): requests a
 * client library would never send, signed here by hand, so each case controls the exact bytes of
 * the path, the query, the headers and the form. Each test is one refusal or one rule of what a
 * signature covers.
 */
import assert from 'node:assert/strict';
import { createHash, createSign } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { newServiceAccountKey, newTokenSecret } from '@eventbus/emulator-common/iam-enforce.ts';
import { type StorageEmulator, startStorageEmulator } from '../server.ts';
import { tempDir } from './support/harness.ts';

const EMAIL = 'xml-signer@p.iam.gserviceaccount.com';
const SIGNER = `serviceAccount:${EMAIL}`;
const BUCKET = 'xml-paths';
const BOUNDARY = 'form-boundary-1';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Percent-encodes all but `A-Za-z0-9-._~`, as a signer does. */
const encode = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe('storage emulator: XML API paths, raw', () => {
  let dir: string;
  let emu: StorageEmulator;
  const key = newServiceAccountKey(SIGNER, 'p');
  const privateKey = key.keyFile.private_key;

  before(async () => {
    dir = tempDir();
    const file = join(dir, 'access.json');
    writeFileSync(
      file,
      JSON.stringify({
        tokenSecret: newTokenSecret(),
        policies: [
          {
            resource: `projects/_/buckets/${BUCKET}`,
            bindings: [{ role: 'roles/storage.objectAdmin', members: [SIGNER] }],
          },
        ],
        serviceAccountKeys: [key.published],
      }),
    );
    emu = await startStorageEmulator({
      port: 0,
      dataDir: join(dir, 'data'),
      fsync: 'none',
      iam: { file },
      formBodyTimeoutMs: 1500,
      drainMs: 300,
    });
    const made = await send(
      'POST',
      '/storage/v1/b?project=p',
      { 'content-type': 'application/json' },
      JSON.stringify({ name: BUCKET }),
    );
    assert.equal(made.status, 200, made.body);
  });
  after(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One request on its own connection; `timeoutMs` bounds the wait for the answer. */
  function send(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string | Buffer,
    timeoutMs = 30_000,
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: emu.port, method, path, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            }),
          );
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  const codeOf = (a: Answer): string | undefined => /<Code>([^<]*)<\/Code>/.exec(a.body)?.[1];

  /** A V4 signed URL's query for `method` on `path` as sent, `host` signed, `extra` pairs encoded. */
  function v4(method: string, path: string, extra: [string, string][] = [], host = '127.0.0.1'): string {
    const date = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
    const scope = `${date.slice(0, 8)}/auto/storage/goog4_request`;
    const pairs: [string, string][] = [
      ['X-Goog-Algorithm', 'GOOG4-RSA-SHA256'],
      ['X-Goog-Credential', encode(`${EMAIL}/${scope}`)],
      ['X-Goog-Date', date],
      ['X-Goog-Expires', '600'],
      ['X-Goog-SignedHeaders', 'host'],
      ...extra,
    ];
    const query = pairs
      .slice()
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const canonical = [method, path, query, `host:${host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
    const toSign = [
      'GOOG4-RSA-SHA256',
      date,
      scope,
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    const signature = createSign('RSA-SHA256').update(toSign).sign(privateKey).toString('hex');
    return `${pairs.map(([k, v]) => `${k}=${v}`).join('&')}&X-Goog-Signature=${signature}`;
  }

  /** A V2 signed URL's query; `goog` are the x-goog-* headers the request will carry. */
  function v2(method: string, path: string, contentType = '', goog: Record<string, string> = {}): string {
    const expires = Math.floor(Date.now() / 1000) + 600;
    const extension = Object.keys(goog)
      .sort()
      .map((n) => `${n}:${goog[n]}\n`)
      .join('');
    const toSign = [method, '', contentType, String(expires), `${extension}${path}`].join('\n');
    const signature = createSign('RSA-SHA256').update(toSign).sign(privateKey).toString('base64');
    return `GoogleAccessId=${encode(EMAIL)}&Expires=${expires}&Signature=${encode(signature)}`;
  }

  /** A V2 POST policy form: `fields` before the file, the policy signed over `conditions` (or, `policyIs`, the whole policy document). */
  function form(
    conditions: unknown,
    fields: [string, string][],
    filename = 'f.txt',
    content = 'posted',
    policyIs = false,
  ): string {
    const document = policyIs
      ? conditions
      : { expiration: new Date(Date.now() + 600_000).toISOString(), conditions };
    const policy = Buffer.from(JSON.stringify(document)).toString('base64');
    const signature = createSign('RSA-SHA256').update(policy).sign(privateKey).toString('base64');
    const all: [string, string][] = [
      ...fields,
      ['GoogleAccessId', EMAIL],
      ['policy', policy],
      ['signature', signature],
    ];
    const part = ([n, v]: [string, string]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`;
    return `${all.map(part).join('')}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
  }
  const FORM_TYPE = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };

  /** The object's ACL entities, read by the owner over the JSON API. */
  async function aclOf(name: string): Promise<string[]> {
    const a = await send('GET', `/storage/v1/b/${BUCKET}/o/${encodeURIComponent(name)}/acl`);
    assert.equal(a.status, 200, a.body);
    return (JSON.parse(a.body) as { items: { entity: string }[] }).items.map((i) => i.entity);
  }

  describe('what a signature covers decides a write', () => {
    it('ignores JSON API query parameters on a V2 signed PUT', async () => {
      const path = `/${BUCKET}/v2-query.txt`;
      const q = `${v2('PUT', path, 'text/plain')}&predefinedAcl=publicRead&ifGenerationMatch=12345`;
      const a = await send('PUT', `${path}?${q}`, { 'content-type': 'text/plain' }, 'hi');
      assert.equal(a.status, 200, a.body);
      assert.ok(!(await aclOf('v2-query.txt')).includes('allUsers'));
    });

    it('applies x-goog-acl and x-goog-if-generation-match a V2 signature covers', async () => {
      const path = `/${BUCKET}/v2-acl.txt`;
      /** A V2 signed PUT of `body` carrying (and signing) the x-goog-* headers `goog`. */
      const put = (goog: Record<string, string>, body: string) =>
        send(
          'PUT',
          `${path}?${v2('PUT', path, 'text/plain', goog)}`,
          { 'content-type': 'text/plain', ...goog },
          body,
        );
      const a = await put({ 'x-goog-acl': 'public-read' }, 'hi');
      assert.equal(a.status, 200, a.body);
      assert.ok((await aclOf('v2-acl.txt')).includes('allUsers'));
      const b = await put({ 'x-goog-if-generation-match': '0' }, 'again');
      assert.equal(b.status, 412, b.body);
      assert.equal(codeOf(b), 'PreconditionFailed');
    });

    it('ignores an x-goog-acl header a V4 signature does not sign', async () => {
      const path = `/${BUCKET}/v4-acl.txt`;
      const a = await send('PUT', `${path}?${v4('PUT', path)}`, { 'x-goog-acl': 'public-read' }, 'hi');
      assert.equal(a.status, 200, a.body);
      assert.ok(!(await aclOf('v4-acl.txt')).includes('allUsers'));
    });

    it('takes a POST policy’s ACL from its named acl field, never from the URL', async () => {
      const viaUrl = form([{ key: 'post-url.txt' }], [['key', 'post-url.txt']]);
      const a = await send('POST', `/${BUCKET}?predefinedAcl=publicRead`, FORM_TYPE, viaUrl);
      assert.equal(a.status, 204, a.body);
      assert.ok(!(await aclOf('post-url.txt')).includes('allUsers'));
      /** A form with an `acl` field, the policy naming it or not. */
      const withAcl = (name: string, acl: string, named: boolean): string =>
        form(named ? [{ key: name }, { acl }] : [{ key: name }], [
          ['key', name],
          ['acl', acl],
        ]);
      const b = await send('POST', `/${BUCKET}`, FORM_TYPE, withAcl('post-acl.txt', 'public-read', true));
      assert.equal(b.status, 204, b.body);
      assert.ok((await aclOf('post-acl.txt')).includes('allUsers'));
      const unnamed = withAcl('post-unnamed.txt', 'public-read', false);
      assert.equal((await send('POST', `/${BUCKET}`, FORM_TYPE, unnamed)).status, 400);
      const bogus = withAcl('post-bogus.txt', 'everyone', true);
      const c = await send('POST', `/${BUCKET}`, FORM_TYPE, bogus);
      assert.equal(c.status, 400, c.body);
      assert.equal(codeOf(c), 'InvalidArgument');
    });
  });

  /** The object's status over the JSON API (the owner's). */
  const statusOf = async (name: string): Promise<number> =>
    (await send('GET', `/storage/v1/b/${BUCKET}/o/${encodeURIComponent(name)}`)).status;

  describe('the object acted on is the one signed', () => {
    it('keeps a trailing slash as part of the name', async () => {
      const path = `/${BUCKET}/dir/`;
      const a = await send('PUT', `${path}?${v4('PUT', path)}`, {}, 'x');
      assert.equal(a.status, 200, a.body);
      assert.equal(await statusOf('dir/'), 200);
      assert.equal(await statusOf('dir'), 404);
    });

    it('does not resolve dot segments', async () => {
      const path = `/${BUCKET}/uploads/../evil.txt`;
      const a = await send('PUT', `${path}?${v4('PUT', path)}`, {}, 'x');
      assert.equal(a.status, 200, a.body);
      assert.equal(await statusOf('uploads/../evil.txt'), 200);
      assert.equal(await statusOf('evil.txt'), 404);
    });

    it('refuses a virtual-hosted, CNAME or foreign Host; takes its own with or without the port', async () => {
      const path = `/${BUCKET}/dir/`;
      for (const host of [`victim.storage.googleapis.com`, 'files.example.com', `127.0.0.1:1`]) {
        const signedFor = host.replace(/:\d+$/, '');
        const a = await send('GET', `${path}?${v4('GET', path, [], signedFor)}`, { host });
        assert.equal(a.status, 400, `${host}: ${a.body}`);
        assert.equal(codeOf(a), 'InvalidURI');
      }
      for (const host of ['127.0.0.1', `127.0.0.1:${emu.port}`, `localhost:${emu.port}`]) {
        const signedFor = host.replace(/:\d+$/, '');
        const a = await send('GET', `${path}?${v4('GET', path, [], signedFor)}`, { host });
        assert.equal(a.status, 200, `${host}: ${a.body}`);
      }
    });
  });

  describe('low-severity rules', () => {
    it('refuses a form whose bucket field is not the bucket posted to', async () => {
      const other = form(
        [{ key: 'b.txt' }, { bucket: 'someone-else' }],
        [
          ['key', 'b.txt'],
          ['bucket', 'someone-else'],
        ],
      );
      const a = await send('POST', `/${BUCKET}`, FORM_TYPE, other);
      assert.equal(a.status, 400, a.body);
      assert.equal(codeOf(a), 'InvalidArgument');
      const same = form(
        [{ key: 'b.txt' }, { bucket: BUCKET }],
        [
          ['key', 'b.txt'],
          ['bucket', BUCKET],
        ],
      );
      assert.equal((await send('POST', `/${BUCKET}`, FORM_TYPE, same)).status, 204);
    });

    it('serves a signed HEAD: the headers of the GET, no body', async () => {
      const path = `/${BUCKET}/head.txt`;
      assert.equal((await send('PUT', `${path}?${v4('PUT', path)}`, {}, 'twelve bytes')).status, 200);
      const a = await send('HEAD', `${path}?${v4('HEAD', path)}`);
      assert.equal(a.status, 200, a.body);
      assert.equal(a.headers['content-length'], '12');
      assert.ok(a.headers['x-goog-generation']);
      assert.equal(a.body, '');
    });

    it('puts the file name into key literally, $& and $` too', async () => {
      const key = ['up/', '$', '{filename}'].join('');
      const a = await send(
        'POST',
        `/${BUCKET}`,
        FORM_TYPE,
        form([['starts-with', '$key', 'up/']], [['key', key]], 'a$&b$`c'),
      );
      assert.equal(a.status, 204, a.body);
      assert.equal(await statusOf('up/a$&b$`c'), 200);
    });

    it('answers a missing object NoSuchKey, a missing bucket NoSuchBucket', async () => {
      // A bucket whose name says "bucket": the object's absence must still be NoSuchKey.
      const made = await send(
        'POST',
        '/storage/v1/b?project=p',
        { 'content-type': 'application/json' },
        JSON.stringify({ name: 'my-bucket-2' }),
      );
      assert.equal(made.status, 200, made.body);
      const key = await send('GET', '/my-bucket-2/no-such-object');
      assert.equal(key.status, 404, key.body);
      assert.equal(codeOf(key), 'NoSuchKey');
      const bucket = await send('GET', '/no-such-bucket-here/x');
      assert.equal(bucket.status, 404, bucket.body);
      assert.equal(codeOf(bucket), 'NoSuchBucket');
    });

    it('answers XML errors on XML paths, a bad token or a bad path too', async () => {
      for (const [path, headers] of [
        [`/${BUCKET}/x`, { authorization: 'Bearer nope' }],
        [`/${BUCKET}/%zz`, {}],
      ] as const) {
        const a = await send('GET', path, headers);
        assert.ok(a.status >= 400 && a.status < 500, `${path}: ${a.status} ${a.body}`);
        assert.match(String(a.headers['content-type']), /^application\/xml/, `${path}: ${a.body}`);
        assert.match(a.body, /^<\?xml[^>]*><Error><Code>/);
      }
    });

    it('refuses a signed policy that is JSON but not an object 400 InvalidPolicyDocument', async () => {
      for (const conditions of [null, 'text', [1, 2]]) {
        const a = await send(
          'POST',
          `/${BUCKET}`,
          FORM_TYPE,
          form(conditions, [['key', 'n.txt']], 'f', 'c', true),
        );
        assert.equal(a.status, 400, a.body);
        assert.equal(codeOf(a), 'InvalidPolicyDocument');
      }
    });

    it('reads + in the query as a plus, as the signature check does', async () => {
      for (const name of ['a b/x', 'a+b/y']) {
        const path = `/${BUCKET}/${encode(name).replace('%2F', '/')}`;
        assert.equal((await send('PUT', `${path}?${v4('PUT', path)}`, {}, 'z')).status, 200);
      }
      const q = v4('GET', `/${BUCKET}`, [['prefix', 'a%2Bb']]).replace('prefix=a%2Bb', 'prefix=a+b');
      const a = await send('GET', `/${BUCKET}?${q}`);
      assert.equal(a.status, 200, a.body);
      assert.match(a.body, /<Prefix>a\+b<\/Prefix>/);
      assert.deepEqual(a.body.match(/<Key>[^<]*<\/Key>/g), ['<Key>a+b/y</Key>']);
    });
  });

  describe('a POST form that is too large or never ends', () => {
    it('answers a chunked form over 32 MiB 400 EntityTooLarge', async function () {
      this.timeout(60_000);
      const big = Buffer.alloc((32 << 20) + 1024, 0x61);
      const a = await send('POST', `/${BUCKET}`, { ...FORM_TYPE, 'transfer-encoding': 'chunked' }, big);
      assert.equal(a.status, 400, a.body);
      assert.equal(codeOf(a), 'EntityTooLarge');
    });

    it('keeps a connection whose refused body ended in time for its next request', async function () {
      this.timeout(30_000);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const ask = (headers: Record<string, string>, body: string | undefined, end: boolean) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request(
            { host: '127.0.0.1', port: emu.port, method: 'POST', path: `/${BUCKET}`, headers, agent },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', reject);
          if (end) req.end(body);
          else req.write(body ?? '');
        });
      try {
        // Refused before its body is read (another host); the body is short and arrives at once.
        const host = { ...FORM_TYPE, host: 'files.example.com', 'content-length': '5' };
        assert.equal(await ask(host, 'hello', true), 400);
        // The next request on that connection outlives the drain bound: it must still be answered.
        const stalled = { ...FORM_TYPE, 'content-length': '100000' };
        assert.equal(await ask(stalled, `--${BOUNDARY}\r\n`, false), 408);
      } finally {
        agent.destroy();
      }
    });

    it('lets a form that keeps arriving take longer than the bound: it is an idle bound', async function () {
      this.timeout(30_000);
      const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\nslow.txt\r\n--${BOUNDARY}--\r\n`;
      // Eight parts, one every 300 ms: 2.1 s in all, over the 1.5 s bound, never 1.5 s without a byte.
      const step = Math.ceil(body.length / 8);
      const parts = Array.from({ length: 8 }, (_, i) => body.slice(i * step, (i + 1) * step));
      const t0 = Date.now();
      const out = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: emu.port,
            method: 'POST',
            path: `/${BUCKET}`,
            headers: { ...FORM_TYPE, 'content-length': String(Buffer.byteLength(body)) },
            agent: false,
          },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => {
              text += c.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          },
        );
        req.on('error', reject);
        for (const [i, p] of parts.entries())
          setTimeout(() => {
            if (i === parts.length - 1) req.end(p);
            else req.write(p);
          }, i * 300);
      });
      assert.ok(Date.now() - t0 >= 2_000);
      assert.notEqual(out.status, 408, out.body);
      assert.doesNotMatch(out.body, /RequestTimeout/);
    });

    it('answers a form whose body stalls 408 RequestTimeout', async function () {
      this.timeout(30_000);
      const t0 = Date.now();
      const out = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: emu.port,
            method: 'POST',
            path: `/${BUCKET}`,
            headers: { ...FORM_TYPE, 'content-length': '100000' },
            agent: false,
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => {
              body += c.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.setTimeout(20_000, () => req.destroy(new Error('no answer in 20 s')));
        req.write(`--${BOUNDARY}\r\n`);
      });
      assert.equal(out.status, 408, out.body);
      assert.match(out.body, /<Code>RequestTimeout<\/Code>/);
      assert.ok(Date.now() - t0 < 15_000, `answered after ${Date.now() - t0} ms`);
    });
  });
});
