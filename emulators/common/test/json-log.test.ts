/**
 * A state kept as JSON records (emulators/common/json-log.ts): each change applied and then
 * durable, the whole state back after a reopen, and a log that outgrows twice its snapshot
 * rewritten as the state's snapshot (a key overwritten a thousand times is one record again).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLog } from '../append-log.ts';
import { JsonLog, type JsonState } from '../json-log.ts';

type Rec = { readonly key: string; readonly value: string };

/** A map of keys to values, its snapshot one record per key. */
class MapState implements JsonState<Rec> {
  readonly map = new Map<string, string>();
  applied = 0;
  apply(r: Rec): void {
    this.map.set(r.key, r.value);
    this.applied += 1;
  }
  snapshot(): Rec[] {
    return [...this.map].map(([key, value]) => ({ key, value }));
  }
}

describe('emulator common: the JSON record log', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'json-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('applies each change at once and finds every one again after a reopen', async () => {
    const path = join(dir, 'state.log');
    const state = new MapState();
    const log = await JsonLog.open(path, 'always', state);
    const pending = log.commit({ key: 'a', value: '1' });
    assert.equal(state.map.get('a'), '1', 'in memory before it is durable');
    await pending;
    await log.commit({ key: 'b', value: '2' });
    await log.commit({ key: 'a', value: '3' });
    await log.close();
    const again = new MapState();
    await (await JsonLog.open(path, 'none', again)).close();
    assert.deepEqual(
      [...again.map],
      [
        ['a', '3'],
        ['b', '2'],
      ],
    );
  });

  it('compacts a log past twice its snapshot into the snapshot', async () => {
    const path = join(dir, 'state.log');
    const log = await JsonLog.open(path, 'none', new MapState());
    const value = 'x'.repeat(1000);
    // About 2 MB of records over ten keys: past the 1 MiB floor and twice the snapshot.
    for (let i = 0; i < 2000; i++) await log.commit({ key: `k${i % 10}`, value: `${i}:${value}` });
    await log.close();
    const written = 2000 * (value.length + 30);
    const kept = readLog(path).validBytes;
    assert.ok(kept < written * 0.75, `the log was compacted: ${kept} bytes kept of about ${written} written`);
    const again = new MapState();
    await (await JsonLog.open(path, 'none', again)).close();
    assert.equal(again.map.size, 10);
    assert.equal(again.map.get('k9'), `1999:${value}`);
    assert.ok(again.applied < 2000, `replayed ${again.applied} records, not every change`);
  });
});
