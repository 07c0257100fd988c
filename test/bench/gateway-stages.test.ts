/** bench/gateway-stages.ts: the gateway's own steps timed in process, and the CPU 0.5x leaves. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stageCosts, stageFigures } from '../../bench/gateway-stages.ts';
import { issueToken } from '../../gateway/credentials.ts';
import { fileTokenStore } from '../../gateway/token-store.ts';

const SETTINGS = { name: 'bench', project: 'bench-project', region: 'europe-west1' };
const EVENT = JSON.stringify({
  event_name: 'view_content',
  content_name: 'Red Shoe',
  content_type: 'product',
});

describe('bench/gateway-stages', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-stages-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tokenIn = async (path: string) =>
    fileTokenStore(path).update((set) => {
      const r = issueToken(set, { scopes: ['publish:*'] }, randomBytes, new Date());
      return { set: r.set, result: r.secret };
    });

  it('times every step of an accepted token and event', async () => {
    const store = fileTokenStore(join(dir, 'tokens.json'));
    const token = await tokenIn(join(dir, 'tokens.json'));
    const costs = await stageCosts(store, token, EVENT, SETTINGS, 200);
    for (const [step, us] of Object.entries(costs)) {
      assert.ok(Number.isFinite(us) && us >= 0, `${step}: ${us}`);
    }
    assert.ok(costs.token > 0 && costs.decode > 0 && costs.encode > 0);
  });

  it('refuses to time a token the gateway would refuse, or an invalid event', async () => {
    const store = fileTokenStore(join(dir, 'tokens.json'));
    const token = await tokenIn(join(dir, 'tokens.json'));
    const other = await tokenIn(join(dir, 'other.json'));
    await assert.rejects(stageCosts(store, other, EVENT, SETTINGS, 10), /token was not accepted/);
    const invalid = JSON.stringify({ event_name: 'view_content', value: 'a lot' });
    await assert.rejects(stageCosts(store, token, invalid, SETTINGS, 10), /event was refused/);
  });

  it('leaves the gateway twice the bare run’s machine CPU, less the emulator and autocannon', () => {
    const [own, budget] = stageFigures(
      { token: 0.5, decode: 1, message: 3, encode: 0.5 },
      { gateway: 32, emulator: 17, 'bench (autocannon)': 16 },
      { bare: 14, 'bench (autocannon)': 13 },
    );
    assert.equal(own?.value, 5);
    assert.equal(own?.baseline?.value, 32);
    assert.match(own?.detail ?? '', /the other 27\.0 µs/);
    assert.equal(budget?.value, 54);
    assert.equal(budget?.baseline?.value, 65);
    assert.match(
      budget?.detail ?? '',
      /the gateway may spend 21\.0 µs per POST \(the gateway spends 32\.0\)/,
    );
    const [, loaded] = stageFigures(
      { token: 1, decode: 2, message: 4, encode: 2.5 },
      { gateway: 80, emulator: 43, 'bench (autocannon)': 29 },
      { bare: 15, 'bench (autocannon)': 13 },
    );
    assert.match(loaded?.detail ?? '', /they alone are over it by 16\.0 µs \(the gateway spends 80\.0\)/);
  });
});
