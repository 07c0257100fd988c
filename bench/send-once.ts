/**
 * `npm run bench send-once`: what the send-once claim (core/claims/send-once.ts) costs `forward`
 * per delivery, against the same delivery core without it, in the same run and process. One
 * push each through `forwardPush` (core/delivery/forward.ts) to a webhook destination whose
 * sender answers 200 at once, so the figure is the core's CPU, not the network's:
 *
 * - baseline: no claim store (forward before #73);
 * - the first fan-out's first attempt, the usual delivery: it sends on store's claim (no write);
 * - any other attempt (a retry, a copy, a replay): a claim created in a claim store in memory and
 *   the ledger asked, which the cloud answers in milliseconds of wall time but little CPU.
 *
 * The gate (issue #73): the usual delivery costs at most 1.2× the baseline's CPU.
 */
import type { ForwardDeps } from '../core/delivery/forward.ts';
import { forwardPush } from '../core/delivery/forward.ts';
import { deliveryMessage, type PushedMessage } from '../core/delivery/message.ts';
import type { StoredEvent } from '../core/event.ts';
import { driverFor } from '../core/platforms/drivers.ts';
import type { Destination } from '../schemas/settings.ts';
import { memoryClaims } from '../test/support/memory-claims.ts';
import type { BenchFigure, BenchOptions, BenchSuite } from './lib.ts';

const GATE = 1.2;
const hook: Destination = {
  id: 'hook',
  type: 'webhook',
  base_url: 'http://127.0.0.1:9/',
  config: { path: '/in' },
  secrets: { signing_key: 'HOOK_KEY' },
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** A delivery push of a fresh event: the first fan-out's (published now), or another message's. */
function push(i: number, first: boolean, now: number): PushedMessage {
  const event: StoredEvent = {
    event_name: 'view_content',
    event_id: `bench-${i}`,
    event_time: '2026-11-25T10:00:00.000Z',
    payload_digest: (i % 16).toString(16).repeat(64),
    event_data: { content_name: 'Shoe', content_type: 'product' },
  };
  // Another message's sighting lies well behind it: nothing to wait for, the claim and the ledger only.
  const m = deliveryMessage(event, hook.id, false, false, { first, at: first ? now : now - 3_600_000 });
  return {
    messageId: `m-${i}`,
    attributes: m.attributes,
    data: m.data,
    subscription: 'projects/p/subscriptions/deliveries-hook',
    deliveryAttempt: 1,
    publishTime: new Date(now).toISOString(),
  };
}

function deps(claims: boolean): ForwardDeps {
  return {
    destinations: [hook],
    driverFor,
    getSecret: () => 'k',
    send: () => Promise.resolve({ kind: 'response', status: 200, headers: {}, body: 'ok' }),
    now: () => new Date(),
    ...(claims ? { claims: memoryClaims() } : {}),
  };
}

/** Median CPU µs per delivery over `rounds` rounds of `count` pushes (the first round warms up). */
async function cpuPerDelivery(
  rounds: number,
  count: number,
  d: () => ForwardDeps,
  first: boolean,
  expect: string,
): Promise<number> {
  const per: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    const now = Date.now();
    const pushes = Array.from({ length: count }, (_, i) => push(r * count + i, first, now));
    const forward = d();
    const start = process.cpuUsage();
    for (const p of pushes) {
      const result = await forwardPush(p, forward);
      // A bench of a broken path fails instead of measuring it.
      if (result.entries[0]?.row.status !== expect) throw new Error(`expected ${expect}: ${result.summary}`);
    }
    const used = process.cpuUsage(start);
    if (r > 0) per.push((used.user + used.system) / count);
  }
  return median(per);
}

export const suite: BenchSuite = {
  name: 'send once (the claim before every call, in-process)',
  async run({ quick }: BenchOptions): Promise<BenchFigure[]> {
    const rounds = quick ? 3 : 9;
    const count = quick ? 500 : 5000;
    // Interleaved, so a busy moment of the machine falls on all three alike.
    const base: number[] = [];
    const firstFanOut: number[] = [];
    const other: number[] = [];
    for (let turn = 0; turn < 3; turn++) {
      base.push(await cpuPerDelivery(rounds, count, () => deps(false), true, 'delivered'));
      firstFanOut.push(await cpuPerDelivery(rounds, count, () => deps(true), true, 'delivered'));
      other.push(await cpuPerDelivery(rounds, count, () => deps(true), false, 'delivered'));
    }
    const b = median(base);
    const f = median(firstFanOut);
    const o = median(other);
    return [
      {
        name: 'forward CPU per delivery without a claim store (before #73)',
        value: b,
        unit: 'µs',
        detail: `median of 3 turns of ${rounds} rounds of ${count} pushes`,
      },
      {
        name: 'the first fan-out’s first attempt (sends on store’s claim), against the baseline',
        value: f / b,
        unit: '×',
        detail: `${f.toFixed(1)} µs against ${b.toFixed(1)} µs, same run`,
        target: { op: '<=', value: GATE, hard: true },
      },
      {
        name: 'any other attempt (a claim created, the ledger asked), against the baseline',
        value: o / b,
        unit: '×',
        detail: `${o.toFixed(1)} µs against ${b.toFixed(1)} µs, same run; a claim store in memory`,
      },
    ];
  },
};
