/**
 * The receiver snippet in docs/delivery.md, run as written against what the webhook driver
 * sends, so the documented check and the signature cannot drift apart.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WEBHOOK_HEADERS } from '../../core/platforms/webhook/driver.ts';
import { webhookDriver } from '../../core/platforms/webhook/index.ts';
import { REPO_ROOT } from '../../local/settings-file.ts';

type Headers = Record<string, string | undefined>;
type Verify = (
  method: string,
  url: string,
  rawBody: string,
  headers: Headers,
  key: string,
  now?: number,
) => string;
type Receive = (
  method: string,
  url: string,
  rawBody: string,
  headers: Headers,
  key: string,
  act: (event: unknown) => Promise<void> | void,
  now?: number,
) => Promise<number>;

describe('webhook: the documented receiver snippet', () => {
  let dir: string;
  let verify: Verify;
  let receive: Receive;
  before(async () => {
    const doc = readFileSync(resolve(REPO_ROOT, 'docs/delivery.md'), 'utf8');
    const at = doc.indexOf('Verifying in a receiver');
    const code = /```js\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
    assert.ok(code, 'docs/delivery.md has the js snippet');
    dir = mkdtempSync(join(tmpdir(), 'webhook-snippet-'));
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, `${code}\nexport { verify, receive };\n`);
    ({ verify, receive } = (await import(pathToFileURL(file).href)) as { verify: Verify; receive: Receive });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const destination = {
    id: 'hook',
    type: 'webhook' as const,
    base_url: 'https://hooks.example',
    config: { path: '/in?x=1' },
  };
  const event = (now: Date, value = 1) => ({
    event_id: 'e-1',
    event_name: 'purchase',
    event_time: now.toISOString(),
    payload_digest: 'a'.repeat(64),
    event_data: { value },
  });
  const prepare = (now: Date, value = 1) => {
    const p = webhookDriver.prepare(event(now, value), {
      destination,
      secrets: { signing_key: 'sekrit' },
      now,
    });
    assert.ok(p.ok);
    return p.request;
  };

  it('accepts a signed delivery, and refuses a stale timestamp, another URL, another body or key', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const { url, body, headers } = prepare(now);
    const at = now.getTime();
    assert.equal(verify('POST', url, body, headers, 'sekrit', at), 'ok');
    assert.equal(verify('POST', url, body, headers, 'sekrit', at + 301_000), 'stale');
    assert.equal(verify('POST', url, body, headers, 'sekrit', at - 301_000), 'stale');
    assert.equal(
      verify('POST', 'https://hooks.example/elsewhere', body, headers, 'sekrit', at),
      'bad signature',
    );
    assert.equal(verify('POST', url, `${body} `, headers, 'sekrit', at), 'bad signature');
    assert.equal(verify('POST', url, body, headers, 'wrong', at), 'bad signature');
  });

  it('acts once per delivery id: a retry (new timestamp and signature) and a replayed capture are answered 200 without acting', async () => {
    const now = new Date('2026-03-01T12:10:00.000Z');
    const first = prepare(now);
    const later = new Date(now.getTime() + 90_000);
    const retry = prepare(later);
    assert.notEqual(retry.headers[WEBHOOK_HEADERS.signature], first.headers[WEBHOOK_HEADERS.signature]);
    assert.equal(retry.headers[WEBHOOK_HEADERS.deliveryId], first.headers[WEBHOOK_HEADERS.deliveryId]);
    const acted: unknown[] = [];
    const act = (e: unknown) => {
      acted.push(e);
    };
    const r = (req: typeof first, at: Date) =>
      receive('POST', req.url, req.body, req.headers, 'sekrit', act, at.getTime());
    assert.equal(await r(first, now), 200);
    assert.equal(await r(retry, later), 200);
    assert.equal(await r(first, new Date(now.getTime() + 1000)), 200);
    assert.equal(acted.length, 1);
    // Another event that reused the event_id (other content, other digest) is its own delivery.
    const other = webhookDriver.prepare(
      { ...event(now, 2), payload_digest: 'b'.repeat(64) },
      { destination, secrets: { signing_key: 'sekrit' }, now },
    );
    assert.ok(other.ok);
    assert.equal(await r(other.request, now), 200);
    assert.equal(acted.length, 2);
    assert.equal(
      await receive('POST', first.url, first.body, first.headers, 'wrong', act, now.getTime()),
      401,
    );
  });

  it('acts on the retry of an attempt whose work failed', async () => {
    const now = new Date('2026-03-01T12:20:00.000Z');
    const first = webhookDriver.prepare(
      { ...event(now), event_id: 'e-2' },
      { destination, secrets: { signing_key: 'sekrit' }, now },
    );
    assert.ok(first.ok);
    const later = new Date(now.getTime() + 5000);
    const retry = webhookDriver.prepare(
      { ...event(now), event_id: 'e-2' },
      { destination, secrets: { signing_key: 'sekrit' }, now: later },
    );
    assert.ok(retry.ok);
    let fail = true;
    let done = 0;
    const act = () => {
      if (fail) throw new Error('database down');
      done++;
    };
    const { url, body, headers } = first.request;
    assert.equal(await receive('POST', url, body, headers, 'sekrit', act, now.getTime()), 503);
    fail = false;
    const again = retry.request;
    assert.equal(
      await receive('POST', again.url, again.body, again.headers, 'sekrit', act, later.getTime()),
      200,
    );
    assert.equal(done, 1);
  });
});
