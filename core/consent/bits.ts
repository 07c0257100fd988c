/**
 * The bits of an IAB consent string (TCF and GPP both write theirs as URL-safe base64, six bits a
 * character, most significant first), read without expanding anything: each character is looked
 * up once, so reading a string costs time linear in its length (docs/delivery.md, "Consent").
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEXTET = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SEXTET[ALPHABET.charCodeAt(i)] = i;
// Some encoders write standard base64: read `+` and `/` as their URL-safe twins.
SEXTET['+'.charCodeAt(0)] = 62;
SEXTET['/'.charCodeAt(0)] = 63;

/** Why a string could not be read: thrown by the reader, turned into a "malformed" reading. */
export class ConsentStringError extends Error {}

/** A cursor over a segment's bits. */
export class BitReader {
  private readonly sextets: Uint8Array;
  /** The position of the next bit. */
  pos = 0;

  constructor(segment: string) {
    // Trailing base64 padding is tolerated; anything else outside the alphabet is not base64.
    let end = segment.length;
    while (end > 0 && segment.charCodeAt(end - 1) === 61) end--;
    const text = segment.slice(0, end);
    const sextets = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const v = code < 128 ? (SEXTET[code] as number) : -1;
      if (v < 0) throw new ConsentStringError(`not base64 at character ${i + 1}`);
      sextets[i] = v;
    }
    this.sextets = sextets;
  }

  /** How many bits the segment holds. */
  get length(): number {
    return this.sextets.length * 6;
  }

  /** One bit at an absolute position (no cursor move); false past the end. */
  bitAt(at: number): boolean {
    const sextet = this.sextets[Math.floor(at / 6)];
    return sextet !== undefined && ((sextet >> (5 - (at % 6))) & 1) === 1;
  }

  /** An unsigned integer of `n` bits (n ≤ 48); past the end of the segment is malformed. */
  int(n: number): number {
    if (this.pos + n > this.length) throw new ConsentStringError('ends too early');
    let v = 0;
    let pos = this.pos;
    // A sextet's worth at a time: at most n / 6 + 2 steps.
    for (let left = n; left > 0; ) {
      const offset = pos % 6;
      const take = Math.min(6 - offset, left);
      const sextet = this.sextets[(pos - offset) / 6] as number;
      v = v * 2 ** take + ((sextet >> (6 - offset - take)) & ((1 << take) - 1));
      pos += take;
      left -= take;
    }
    this.pos = pos;
    return v;
  }

  bool(): boolean {
    return this.int(1) === 1;
  }

  /** Moves the cursor on by `n` bits; past the end is malformed. */
  skip(n: number): void {
    if (this.pos + n > this.length) throw new ConsentStringError('ends too early');
    this.pos += n;
  }
}
