/**
 * Event ids minted by the gateway: UUIDv7 (RFC 9562), a 48-bit millisecond timestamp then
 * random bits, so ids sort by time. The random bits come from a 16 KB pool refilled by one
 * randomFillSync call per ~1600 ids (a call per id was once the gateway's hottest function). Each
 * id is written as ASCII into a 36-byte scratch buffer and read out as one flat string: a string
 * concatenated from a dozen pieces is cheaper to make, but every later use (JSON.stringify of the
 * event, the batch's Map of ids, the Publish encoder) first had to flatten it.
 */
import { randomFillSync } from 'node:crypto';

/** The two ASCII hex digits of each byte value, high digit in the high byte. */
const HEX = Uint16Array.from({ length: 256 }, (_, i) => {
  const two = i.toString(16).padStart(2, '0');
  return (two.charCodeAt(0) << 8) | two.charCodeAt(1);
});
const pool = Buffer.allocUnsafe(16 * 1024);
let at = pool.length;
let lastMs = Number.NaN;
/** `tttttttt-tttt-7rrr-vrrr-rrrrrrrrrrrr`: the dashes and version digit never change. */
const text = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');

/** Writes byte `b` as two hex digits at `i` of the scratch text. */
function hex(i: number, b: number): void {
  const two = HEX[b] as number;
  text[i] = two >> 8;
  text[i + 1] = two & 0xff;
}

/** A UUIDv7 for `now` (epoch ms): 48-bit timestamp, version 7, RFC 4122 variant, 74 random bits. */
export function uuidv7(now: number = Date.now()): string {
  if (now !== lastMs) {
    // A batch mints many ids in the same millisecond: the timestamp part is written once.
    const ts = now.toString(16).padStart(12, '0');
    text.write(ts.slice(0, 8), 0, 'latin1');
    text.write(ts.slice(8, 12), 9, 'latin1');
    lastMs = now;
  }
  if (at + 10 > pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  const p = pool;
  const i = at;
  at += 10; // each byte is used once: 4 + 8 + 6 + 8 + 48 = 74 random bits from 10 bytes
  text[15] = (HEX[(p[i] as number) & 0x0f] as number) & 0xff;
  hex(16, p[i + 1] as number);
  hex(19, ((p[i + 2] as number) & 0x3f) | 0x80); // variant 10xx
  hex(21, p[i + 3] as number);
  for (let k = 0; k < 6; k++) hex(24 + 2 * k, p[i + 4 + k] as number);
  return text.toString('latin1', 0, 36);
}
