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

type Verify = (
  method: string,
  url: string,
  rawBody: string,
  headers: Record<string, string | undefined>,
  key: string,
  now?: number,
) => string;

describe('webhook: the documented receiver snippet', () => {
  let dir: string;
  let verify: Verify;
  before(async () => {
    const doc = readFileSync(resolve(REPO_ROOT, 'docs/delivery.md'), 'utf8');
    const at = doc.indexOf('Verifying in a receiver');
    const code = /```js\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
    assert.ok(code, 'docs/delivery.md has the js snippet');
    dir = mkdtempSync(join(tmpdir(), 'webhook-snippet-'));
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, `${code}\nexport { verify };\n`);
    verify = ((await import(pathToFileURL(file).href)) as { verify: Verify }).verify;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts a signed delivery once, then refuses its replay, a stale timestamp, another URL', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    const p = webhookDriver.prepare(
      {
        event_id: 'e-1',
        event_name: 'purchase',
        event_time: now.toISOString(),
        event_data: { value: 1 },
      },
      {
        destination: {
          id: 'hook',
          type: 'webhook',
          base_url: 'https://hooks.example',
          config: { path: '/in?x=1' },
        },
        secrets: { signing_key: 'sekrit' },
        now,
      },
    );
    assert.ok(p.ok);
    const { url, body, headers } = p.request;
    const at = now.getTime();
    assert.equal(verify('POST', url, body, headers, 'sekrit', at), 'ok');
    assert.equal(verify('POST', url, body, headers, 'sekrit', at + 1000), 'replayed');
    const fresh = { ...headers, [WEBHOOK_HEADERS.deliveryId]: 'other' };
    assert.equal(verify('POST', url, body, fresh, 'sekrit', at + 301_000), 'stale');
    assert.equal(verify('POST', url, body, fresh, 'sekrit', at - 301_000), 'stale');
    assert.equal(
      verify('POST', 'https://hooks.example/elsewhere', body, fresh, 'sekrit', at),
      'bad signature',
    );
    assert.equal(verify('POST', url, `${body} `, fresh, 'sekrit', at), 'bad signature');
    assert.equal(verify('POST', url, body, fresh, 'wrong', at), 'bad signature');
  });
});
