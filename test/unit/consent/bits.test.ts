/**
 * The bit reader under the TCF and GPP decoders (core/consent/bits.ts): the URL-safe base64
 * alphabet and the standard one's two twins, trailing padding, anything else refused at its
 * character, bits most significant first across characters, and reads or skips past the end
 * refused without moving the cursor.
 */
import assert from 'node:assert/strict';
import { BitReader, ConsentStringError } from '../../../core/consent/bits.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const refused = (segment: string, message: string) =>
  assert.throws(
    () => new BitReader(segment),
    (err: unknown) => err instanceof ConsentStringError && err.message === message,
    JSON.stringify(segment),
  );
const tooEarly = (err: unknown) => err instanceof ConsentStringError && err.message === 'ends too early';

describe('consent: the bits of a consent string', () => {
  it('reads each character of the alphabet as its six bits, and + and / as - and _', () => {
    for (let i = 0; i < ALPHABET.length; i++) assert.equal(new BitReader(ALPHABET[i] as string).int(6), i);
    assert.equal(new BitReader('+').int(6), 62);
    assert.equal(new BitReader('/').int(6), 63);
  });

  it('drops trailing padding only; any other character is refused where it stands', () => {
    assert.equal(new BitReader('gB==').length, 12);
    assert.equal(new BitReader('====').length, 0);
    assert.equal(new BitReader('').length, 0);
    refused('A=B', 'not base64 at character 2');
    refused('AB!', 'not base64 at character 3');
    refused('A\u007f', 'not base64 at character 2');
    refused('\u0080', 'not base64 at character 1');
    refused('Aé', 'not base64 at character 2');
    refused('A.', 'not base64 at character 2');
  });

  it('reads bits most significant first, across characters', () => {
    // g = 100000, B = 000001
    const r = new BitReader('gB');
    assert.deepEqual(
      Array.from({ length: 13 }, (_, at) => r.bitAt(at)),
      [true, false, false, false, false, false, false, false, false, false, false, true, false],
    );
    assert.equal(r.pos, 0);
    assert.equal(r.int(12), 32 * 64 + 1);
    const mid = new BitReader('gB');
    mid.pos = 3;
    assert.equal(mid.int(6), 0);
    assert.equal(mid.pos, 9);
    assert.equal(mid.int(3), 1);
    const flags = new BitReader('g');
    assert.deepEqual([flags.bool(), flags.bool()], [true, false]);
  });

  it('refuses a read or a skip past the end, leaving the cursor where it was', () => {
    const r = new BitReader('gB');
    r.skip(6);
    assert.equal(r.pos, 6);
    assert.throws(() => r.int(7), tooEarly);
    assert.throws(() => r.skip(7), tooEarly);
    assert.equal(r.pos, 6);
    r.skip(6);
    assert.equal(r.pos, 12);
    assert.throws(() => r.int(1), tooEarly);
    assert.equal(new BitReader('A').int(6), 0);
  });
});
