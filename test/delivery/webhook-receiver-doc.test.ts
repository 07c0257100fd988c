/**
 * The Standard Webhooks receiver in docs/delivery.md, run as written (its `standardwebhooks`
 * import pointed at the installed package) against what the webhook driver sends.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../../local/settings-file.ts';
import { standardDelivery } from '../support/webhook-verdicts.ts';

type Receive = (
  secret: string,
  rawBody: string,
  headers: Record<string, string>,
  act: (event: unknown) => Promise<void> | void,
) => Promise<number>;

describe('webhook: the documented Standard Webhooks receiver', () => {
  let dir: string;
  let receive: Receive;
  before(async () => {
    const doc = readFileSync(resolve(REPO_ROOT, 'docs/delivery.md'), 'utf8');
    const at = doc.indexOf('Verifying Standard Webhooks in a receiver');
    const code = /```js\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
    assert.ok(at > 0 && code, 'docs/delivery.md has the Node receiver');
    dir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
    const file = join(dir, 'receive.mjs');
    writeFileSync(file, code.replace("'standardwebhooks'", `'${import.meta.resolve('standardwebhooks')}'`));
    ({ receive } = (await import(pathToFileURL(file).href)) as { receive: Receive });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const send = (now: Date, eventId = 'e-1') => standardDelivery(secret, now, eventId);

  it('acts once on a delivery, refuses a wrong key, a changed body and an old timestamp', async () => {
    const acted: unknown[] = [];
    const act = (e: unknown) => {
      acted.push(e);
    };
    const r = send(new Date());
    const headers = { ...r.headers };
    assert.equal(await receive(`whsec_${randomBytes(32).toString('base64')}`, r.body, headers, act), 401);
    assert.equal(await receive(secret, r.body.replace('"value":1', '"value":2'), headers, act), 401);
    const old = send(new Date(Date.now() - 10 * 60_000), 'e-2');
    assert.equal(await receive(secret, old.body, { ...old.headers }, act), 401);
    assert.equal(acted.length, 0);
    assert.equal(await receive(secret, r.body, headers, act), 200);
    assert.equal(await receive(secret, r.body, headers, act), 200);
    assert.equal(acted.length, 1, 'a second copy of one delivery id is not acted on');
    assert.equal((acted[0] as { event_id: string }).event_id, 'e-1');
  });
});
