/**
 * Asymmetric Standard Webhooks signatures (`v1a`, ed25519) made by core/signing/standard-webhooks.ts,
 * checked with Node's own Ed25519. The Standard Webhooks specification shows a `v1a` header but
 * publishes no key to check it with, so the signer is checked against RFC 8032's ed25519 test
 * vectors (section 7.1, tests 1 and 2), and a delivery's `v1a` entry against its public key.
 */
import assert from 'node:assert/strict';
import { createPublicKey, verify } from 'node:crypto';
import { ed25519Signature, publicKeyOf } from '../../../core/signing/standard-webhooks.ts';
import { standardDelivery } from '../../support/webhook-verdicts.ts';

const RFC8032 = [
  {
    seed: '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    pub: 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '',
    signature:
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    pub: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '72',
    signature:
      '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
];

const whsk = (hex: string) => `whsk_${Buffer.from(hex, 'hex').toString('base64')}`;
/** Node's public key object from a `whpk_` key (raw 32 bytes after the SPKI prefix, RFC 8410). */
const publicKey = (whpk: string) =>
  createPublicKey({
    key: Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      Buffer.from(whpk.slice(5), 'base64'),
    ]),
    format: 'der',
    type: 'spki',
  });

describe('Standard Webhooks v1a (ed25519)', () => {
  it('signs RFC 8032’s vectors exactly, from the seed or the seed and public key', () => {
    for (const v of RFC8032) {
      const message = Buffer.from(v.message, 'hex');
      assert.equal(ed25519Signature(whsk(v.seed), message).toString('hex'), v.signature);
      assert.equal(ed25519Signature(whsk(v.seed + v.pub), message).toString('hex'), v.signature);
      assert.equal(publicKeyOf(whsk(v.seed)), `whpk_${Buffer.from(v.pub, 'hex').toString('base64')}`);
    }
  });

  it('a webhook signed with a whsk_ key carries v1a over id.timestamp.body, verified by the public key', () => {
    const [v] = RFC8032;
    const secret = whsk(v?.seed ?? '');
    const now = new Date('2026-11-27T05:00:00Z');
    const { headers, body } = standardDelivery(secret, now);
    const [scheme, sig] = (headers['webhook-signature'] ?? '').split(',');
    assert.equal(scheme, 'v1a');
    const signed = Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`);
    const key = publicKey(publicKeyOf(secret));
    assert.equal(verify(null, signed, key, Buffer.from(sig ?? '', 'base64')), true);
    assert.equal(verify(null, Buffer.from(`${signed}x`), key, Buffer.from(sig ?? '', 'base64')), false);
  });

  it('refuses a whsk_ key that is not an ed25519 key, with the reason', () => {
    assert.throws(() => ed25519Signature('whsk_AAAA', 'x'), /whsk_ followed by the base64 of an ed25519 key/);
  });
});
