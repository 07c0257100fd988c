import assert from 'node:assert/strict';
import { coalescing, type OutgoingMessage } from '../../adapters/publisher.ts';
import { uuidv7 } from '../../gateway/ids.ts';
import { until } from '../support/until.ts';

const msgs = (n: number, tag: string): OutgoingMessage[] =>
  Array.from({ length: n }, (_, i) => ({ data: Buffer.from(`${tag}${i}`), attributes: {} }));

/** A coalescing publisher whose calls are recorded and each held until its gate is opened. */
function gated(maxInFlight: number, holdMs = 0) {
  const calls: string[][] = [];
  /** When each call went out (Date.now(), the clock the hold is measured on). */
  const sentAt: number[] = [];
  const gates: (() => void)[] = [];
  const publish = coalescing(
    async (_topic, messages) => {
      const batch = messages.map((m) => m.data.toString());
      calls.push(batch);
      sentAt.push(Date.now());
      await new Promise<void>((r) => gates.push(r));
      return batch.map((d) => `id-${d}`);
    },
    maxInFlight,
    holdMs,
  );
  return { calls, sentAt, gates, publish };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('publisher: coalescing of waiting requests', () => {
  it('sends at once below the in-flight limit, then merges waiting requests whole into one call', async () => {
    const { calls, gates, publish } = gated(1);
    const a = publish('events', msgs(2, 'a'));
    const b = publish('events', msgs(1, 'b'));
    const c = publish('events', msgs(3, 'c'));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, [['a0', 'a1']]);
    gates.shift()?.();
    assert.deepEqual(await a, ['id-a0', 'id-a1']);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls[1], ['b0', 'c0', 'c1', 'c2']);
    gates.shift()?.();
    assert.deepEqual(await b, ['id-b0']);
    assert.deepEqual(await c, ['id-c0', 'id-c1', 'id-c2']);
  });

  it('while a call is in flight, requests of one event-loop turn share a free slot', async () => {
    const { calls, gates, publish } = gated(4);
    const a = publish('events', msgs(1, 'a')); // idle bus: sent at once
    assert.deepEqual(calls, [['a0']]);
    // Three slots are free, yet the requests of this turn go together, not one call each.
    const rest = [
      publish('events', msgs(1, 'b')),
      publish('events', msgs(1, 'c')),
      publish('events', msgs(1, 'd')),
    ];
    assert.equal(calls.length, 1, 'nothing more before the end of the turn');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(calls, [['a0'], ['b0', 'c0', 'd0']]);
    for (const open of gates.splice(0)) open();
    assert.deepEqual(await Promise.all([a, ...rest]), [['id-a0'], ['id-b0'], ['id-c0'], ['id-d0']]);
  });

  it('holds free slots while the latest call is younger than the hold: requests wait for its answer', async () => {
    const { calls, gates, publish } = gated(4, 200);
    const a = publish('events', msgs(1, 'a'));
    const b = publish('events', msgs(1, 'b'));
    await sleep(20);
    const c = publish('events', msgs(1, 'c'));
    await sleep(20);
    // Three slots free, but the call in flight is younger than 200 ms: b and c wait for it.
    assert.deepEqual(calls, [['a0']]);
    gates.shift()?.();
    assert.deepEqual(await a, ['id-a0']);
    await sleep(0);
    assert.deepEqual(calls, [['a0'], ['b0', 'c0']]);
    gates.shift()?.();
    assert.deepEqual(await Promise.all([b, c]), [['id-b0'], ['id-c0']]);
  });

  it('takes a free slot once the latest call has been in flight longer than the hold (a stuck call)', async () => {
    const hold = 30;
    const { calls, sentAt, gates, publish } = gated(4, hold);
    const a = publish('events', msgs(1, 'a')); // never answered until the end: stuck
    await sleep(5);
    const b = publish('events', msgs(1, 'b'));
    const c = publish('events', msgs(1, 'c'));
    // Timed by the clock the hold reads, not by sleeps, so a loaded machine cannot fail it.
    await until('the held requests to go out', async () => (calls.length >= 2 ? true : undefined), 10_000, 5);
    assert.deepEqual(calls, [['a0'], ['b0', 'c0']], 'sent together while a is still stuck');
    const heldFor = (sentAt[1] as number) - (sentAt[0] as number);
    // sentAt[0] may read one millisecond past the hold's own start.
    assert.ok(heldFor >= hold - 1, `held while a was young: sent ${heldFor} ms after a`);
    for (const open of gates.splice(0)) open();
    assert.deepEqual(await Promise.all([a, b, c]), [['id-a0'], ['id-b0'], ['id-c0']]);
  });

  it('never splits a request and never exceeds 1000 messages per call', async () => {
    const sizes: number[] = [];
    const publish = coalescing(async (_t, messages) => {
      sizes.push(messages.length);
      await new Promise((r) => setTimeout(r, 5));
      return messages.map((_, i) => String(i));
    }, 1);
    await Promise.all([
      publish('t', msgs(600, 'x')),
      publish('t', msgs(600, 'y')),
      publish('t', msgs(300, 'z')),
    ]);
    assert.deepEqual(sizes, [600, 900]); // y and z share a call; x + y would exceed 1000
  });

  it('fails every request of a failed call, and only those', async () => {
    let n = 0;
    const publish = coalescing(async (_t, messages) => {
      n++;
      await new Promise((r) => setTimeout(r, 5));
      if (n === 2) throw new Error('bus down');
      return messages.map(() => 'ok');
    }, 1);
    const results = await Promise.allSettled([
      publish('t', msgs(1, 'a')),
      publish('t', msgs(1, 'b')),
      publish('t', msgs(1, 'c')),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'rejected'],
    );
    assert.deepEqual(await publish('t', msgs(1, 'd')), ['ok']);
  });
});

describe('gateway ids', () => {
  it('mints RFC 9562 UUIDv7 with the timestamp first', () => {
    const t = Date.parse('2026-01-01T00:00:00.000Z');
    const id = uuidv7(t);
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), t);
    assert.notEqual(uuidv7(t), id);
  });

  it('draws fresh random bits for every id, across pool refills, in every random position', () => {
    const t = Date.parse('2026-01-01T00:00:00.000Z');
    const ids = Array.from({ length: 20_000 }, () => uuidv7(t)); // ~12 refills of the pool
    assert.equal(new Set(ids).size, ids.length);
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (const id of ids) for (let i = 0; i < 36; i++) seen[i]?.add(id[i] as string);
    for (let i = 15; i < 36; i++) {
      if (i === 18 || i === 23) continue; // dashes
      const want = i === 19 ? 4 : 16; // the variant digit is one of 8, 9, a, b
      assert.equal(seen[i]?.size, want, `position ${i}: ${[...(seen[i] ?? [])].join('')}`);
    }
    assert.deepEqual([...(seen[19] ?? [])].sort(), ['8', '9', 'a', 'b']);
  });
});
