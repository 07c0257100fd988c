/**
 * The chaos run's destinations (scripts/chaos-receiver.ts): an unconfirmed send is told by when its
 * first copy went out, and a frozen receiver holds a call until it thaws, noting whether the sender
 * had hung up by then. Loopback only, a few calls.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import {
  frozenArrivalSeconds,
  type Mark,
  sendTime,
  startCountingReceiver,
} from '../../../scripts/chaos-receiver.ts';

describe('the chaos run: when an unconfirmed send went out', () => {
  const marks: Mark[] = [
    { at: 10_000, what: 'kill forward' },
    { at: 20_000, what: 'freeze' },
    { at: 80_000, what: 'thaw' },
    { at: 90_000, what: 'kill store' },
  ];
  const kills = ['forward', 'supervisor'];

  it('a copy held in the freeze’s first second was in flight when it began; later, sent into silence', () => {
    assert.equal(
      sendTime({ at: 20_400, held: true, abandoned: true }, marks, kills),
      'into the freeze as it began',
    );
    assert.equal(
      sendTime({ at: 23_000, held: true, abandoned: true }, marks, kills),
      'into the freeze later',
    );
  });

  it('an answered copy is its killed sender’s only within the seconds before a kill of forward', () => {
    assert.equal(
      sendTime({ at: 7_000, held: false, abandoned: false }, marks, kills),
      'answered, then its sender killed',
    );
    assert.equal(sendTime({ at: 2_000, held: false, abandoned: false }, marks, kills), 'answered, otherwise');
    // A kill of store does not stop the call's sender.
    assert.equal(
      sendTime({ at: 88_000, held: false, abandoned: false }, marks, kills),
      'answered, otherwise',
    );
    // After the kill: another instance sent it.
    assert.equal(
      sendTime({ at: 11_000, held: false, abandoned: false }, marks, kills),
      'answered, otherwise',
    );
  });

  it('counts held copies by seconds since the freeze began', () => {
    const seconds = frozenArrivalSeconds(
      [
        [
          { at: 20_100, held: true, abandoned: false },
          { at: 5_000, held: false, abandoned: false },
        ],
        [{ at: 22_500, held: true, abandoned: true }],
      ],
      marks,
    );
    assert.deepEqual(seconds, [0, 2]);
    assert.deepEqual(frozenArrivalSeconds([[{ at: 1, held: true, abandoned: false }]], []), []);
  });

  it('holds a call while frozen, answers it on thaw, and notes a sender that hung up', async () => {
    const receiver = await startCountingReceiver();
    const send = (body: object, timeoutMs: number) =>
      new Promise<number | 'timeout'>((resolve) => {
        const req = request(`${receiver.url}/hook`, { method: 'POST', timeout: timeoutMs }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('timeout', () => {
          req.destroy();
          resolve('timeout');
        });
        req.on('error', () => resolve('timeout'));
        req.end(JSON.stringify(body));
      });
    try {
      assert.equal(await send({ event_id: 'a' }, 2000), 200);
      receiver.freeze();
      assert.equal(await send({ event_id: 'b' }, 150), 'timeout');
      const waiting = send({ event_id: 'c' }, 5000);
      await new Promise((r) => setTimeout(r, 100));
      receiver.thaw();
      assert.equal(await waiting, 200);
      const hook = receiver.arrivals.get('hook');
      assert.deepEqual(
        ['a', 'b', 'c'].map((id) => hook?.get(id)?.map((x) => [x.held, x.abandoned])),
        [[[false, false]], [[true, true]], [[true, false]]],
      );
      assert.deepEqual(
        [...(receiver.received.get('hook') ?? [])],
        [
          ['a', 1],
          ['b', 1],
          ['c', 1],
        ],
      );
      assert.deepEqual(
        receiver.marks.map((m) => m.what),
        ['freeze', 'thaw'],
      );
    } finally {
      await receiver.close();
    }
  });
});
