/**
 * Names and the rules on them. Secret Manager takes a project by id or by number in a request and
 * answers every name with the number (`projects/123456789012/secrets/x`), which is also the form
 * IAM conditions see. The emulator knows a project's number from `--project-number id=number`;
 * a project it was not told about gets a fixed 12-digit number derived from its id.
 */
import { createHash } from 'node:crypto';
import { badRequest } from './errors.ts';

export class Projects {
  private readonly numbers = new Map<string, string>();
  private readonly ids = new Map<string, string>();

  constructor(known: Iterable<readonly [string, string]> = []) {
    for (const [id, number] of known) {
      this.numbers.set(id, number);
      this.ids.set(number, id);
    }
  }

  /** The number of a project named by id or number in a request path. */
  numberOf(segment: string): string {
    if (/^\d+$/.test(segment)) return segment;
    const known = this.numbers.get(segment);
    if (known !== undefined) return known;
    if (!/^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/.test(segment)) throw badRequest(`Invalid project: ${segment}`);
    const digest = createHash('sha256').update(segment).digest();
    const number = (digest.readBigUInt64BE(0) % 900_000_000_000n) + 100_000_000_000n;
    this.numbers.set(segment, String(number));
    this.ids.set(String(number), segment);
    return String(number);
  }

  /** The id of a project number, as IAM policies on resources are keyed (the number if unknown). */
  idOf(number: string): string {
    return this.ids.get(number) ?? number;
  }
}

/** A secret id: 1–255 letters, digits, hyphens and underscores. */
export function checkSecretId(id: string): void {
  if (!/^[A-Za-z0-9_-]{1,255}$/.test(id))
    throw badRequest(
      `Secret id [${id}] is invalid: it must be 1 to 255 characters of letters, numerals, hyphens and underscores.`,
    );
}

const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;

/** Labels as Google's resources take them: at most 64, lowercase keys and values of ≤ 63 characters. */
export function checkLabels(labels: unknown): Record<string, string> {
  if (labels === undefined || labels === null) return {};
  if (typeof labels !== 'object' || Array.isArray(labels))
    throw badRequest('labels must be a map of strings.');
  const entries = Object.entries(labels as Record<string, unknown>);
  if (entries.length > 64) throw badRequest('A secret has at most 64 labels.');
  for (const [k, v] of entries) {
    if (!LABEL_KEY.test(k)) throw badRequest(`Invalid label key [${k}].`);
    if (typeof v !== 'string' || !LABEL_VALUE.test(v)) throw badRequest(`Invalid value for label [${k}].`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC32C (Castagnoli) of the bytes, the checksum Secret Manager's `dataCrc32c` carries. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = (CRC32C_TABLE[(crc ^ b) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
