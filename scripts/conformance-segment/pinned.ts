/**
 * The clock and randomness held still while one input runs (worker.ts runs it through ours, then
 * through Segment's own code; replay.ts again in CI): `new Date()` and `Date.now()` give the same
 * instant, `Math.random`, `crypto.randomBytes` (without a callback) and `crypto.randomUUID` the same
 * sequence from the same seed, so that a timestamp, a nonce or a generated key is the same in each
 * run and the requests can be compared byte for byte. Restored when the run ends. A clock or a
 * generator a test has mocked itself (`jest.spyOn(Math, 'random')`, `jest.spyOn(Date, 'now')`) is
 * left as the test made it.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
/** The CommonJS `crypto` object the destinations' code reads `randomBytes` from at each call. */
const crypto = require('node:crypto') as {
  randomBytes: (n: number, cb?: (err: Error | null, buf: Buffer) => void) => Buffer | undefined;
  randomUUID: () => string;
};

const NATIVE = {
  Date,
  now: Date.now,
  random: Math.random,
  randomBytes: crypto.randomBytes,
  randomUUID: crypto.randomUUID,
};

/** mulberry32: a small fixed-seed generator (values in [0, 1)). */
function generator(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs `fn` with the clock stopped at `at` (ms since the epoch) and randomness seeded. */
export async function pinned<T>(at: number, fn: () => Promise<T>): Promise<T> {
  const RealDate = Date;
  const random = Math.random;
  const { randomBytes, randomUUID } = crypto;
  const next = generator(0x5eed);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));
  const Pinned = function (this: unknown, ...args: unknown[]) {
    if (!new.target) return new RealDate(at).toString();
    return args.length === 0
      ? new RealDate(at)
      : new (RealDate as unknown as new (...a: unknown[]) => Date)(...args);
  } as unknown as DateConstructor;
  Object.setPrototypeOf(Pinned, RealDate);
  Object.defineProperty(Pinned, 'prototype', { value: RealDate.prototype });
  Object.defineProperty(Pinned, 'now', { value: () => at });
  if (RealDate === NATIVE.Date && RealDate.now === NATIVE.now) globalThis.Date = Pinned;
  if (random === NATIVE.random) Math.random = next;
  if (randomBytes === NATIVE.randomBytes)
    crypto.randomBytes = (n, cb) => (cb ? randomBytes(n, cb) : bytes(n));
  if (randomUUID === NATIVE.randomUUID)
    crypto.randomUUID = () => {
      const b = bytes(16);
      b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
      b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
      const h = b.toString('hex');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    };
  // ES module imports of node:crypto see the change too.
  syncBuiltinESMExports();
  try {
    return await fn();
  } finally {
    globalThis.Date = RealDate;
    Math.random = random;
    crypto.randomBytes = randomBytes;
    crypto.randomUUID = randomUUID;
    syncBuiltinESMExports();
  }
}
