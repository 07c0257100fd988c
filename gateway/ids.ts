/**
 * Event ids minted by the gateway: UUIDv7 (RFC 9562), a 48-bit millisecond timestamp then
 * random bits, so ids sort by time. Built from crypto.randomUUID(), which draws from a
 * buffered random pool: the `uuid` package's v7 costs a randomFillSync call per id, which
 * showed up as the gateway's hottest function under load.
 */
import { randomUUID } from 'node:crypto';

/** A UUIDv7 for `now` (epoch ms): 48-bit timestamp, version 7, RFC 4122 variant, 74 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const r = randomUUID(); // xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx: variant already set
  if (now !== lastMs) {
    // A batch mints many ids in the same millisecond: format the timestamp part once.
    const ts = now.toString(16).padStart(12, '0');
    lastMs = now;
    lastPrefix = `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7`;
  }
  return lastPrefix + r.slice(15);
}

let lastMs = Number.NaN;
let lastPrefix = '';
