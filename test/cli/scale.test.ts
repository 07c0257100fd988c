/**
 * `npm run scale -- --env <file> --rate <n>` as a user runs it (scripts/scale-table.ts, a child
 * process): its busy line carries the bill core/deploy/bill.ts prices for that rate. The bill's
 * arithmetic is test/unit/deploy/bill.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { billsOf } from '../../scripts/scale-bill.ts';
import { settingsFile } from '../../scripts/scale-table.ts';

const ROOT = join(import.meta.dirname, '../..');

describe('scripts: npm run scale', () => {
  it('runs as npm run scale -- --env <file>', () => {
    const out = execFileSync(
      process.execPath,
      ['scripts/scale-table.ts', '--env', 'environments/example.yaml', '--rate', '10'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    const busy = out.split('\n').find((l) => l.startsWith('busy'));
    const example = settingsFile(join(ROOT, 'environments/example.yaml'));
    const expected = billsOf(example, { eventsPerSecond: 10 }).bills.find(
      (b) => b.scenario === 'busy',
    )?.total;
    assert.ok(expected !== undefined, 'a busy scenario is priced');
    assert.ok(busy?.includes(`$${expected.toLocaleString('en-US', { minimumFractionDigits: 2 })}`), busy);
    // The recommendation is for the rate the settings state (1,000 events/s), whatever --rate asks.
    assert.match(out, /^RECOMMENDED BILLING: at the stated 1,000 events\/s sustained, switch gateway/m);
    assert.match(
      out,
      /^RECOMMENDED CLAIM STORE: at the stated 1,000 events\/s sustained, .*claims: \{ store: bigtable \}/m,
    );
  });
});
