/**
 * The signing certificates the tests share (test/support/signing-certificate.ts), kept between
 * runs: a kept pair is reused only while it is valid now and for a day more and its key is the
 * certificate's; anything else is made again and kept in its place.
 */
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  keptCertificate,
  type SigningCertificate,
  sharedSigningCertificate,
} from '../support/signing-certificate.ts';

describe('test support: signing certificates kept between runs', () => {
  let dir = '';
  let file = '';
  let pair: SigningCertificate;
  let other: SigningCertificate;
  let validTo = 0;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kept-certificates-'));
    file = join(dir, 'slot-0.json');
    pair = sharedSigningCertificate(0);
    other = sharedSigningCertificate(1);
    validTo = new X509Certificate(pair.cert).validToDate.getTime();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** One ask at `now`, with a maker handing out `pair`: what it returned and whether it made one. */
  const ask = (now: number) => {
    let made = 0;
    const got = keptCertificate(file, now, () => {
      made++;
      return pair;
    });
    return { got, made };
  };
  const DAY = 86_400_000;

  it('makes one when none is kept, keeps it, and reuses it while a day of it is left', () => {
    const now = validTo - DAY - 60_000;
    assert.deepEqual(ask(now), { got: pair, made: 1 });
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), pair);
    assert.deepEqual(ask(now), { got: pair, made: 0 });
  });

  it('makes one again when less than a day is left, before it is valid, or when the file is broken', () => {
    writeFileSync(file, JSON.stringify(pair));
    assert.equal(ask(validTo - DAY + 1_000).made, 1, 'less than a day left');
    assert.equal(
      ask(new X509Certificate(pair.cert).validFromDate.getTime() - 1_000).made,
      1,
      'not valid yet',
    );
    writeFileSync(file, '{"key":');
    assert.equal(ask(validTo - 2 * DAY).made, 1, 'half written');
  });

  it('makes one again when the kept key is not the certificate’s', () => {
    writeFileSync(file, JSON.stringify({ key: other.key, cert: pair.cert }));
    assert.equal(ask(validTo - DAY - 60_000).made, 1);
  });
});
