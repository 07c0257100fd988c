/**
 * `node:crypto`'s createHash for the browser bundle of the creator (esbuild aliases the import
 * here): SHA-256 from @noble/hashes, synchronous like Node's, hex digests only.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export function createHash(algorithm: string) {
  if (algorithm !== 'sha256') throw new Error(`only sha256 is available in the browser, not ${algorithm}`);
  const hash = sha256.create();
  const api = {
    update(data: string | Uint8Array) {
      hash.update(typeof data === 'string' ? utf8ToBytes(data) : data);
      return api;
    },
    digest(_encoding: 'hex') {
      return bytesToHex(hash.digest());
    },
  };
  return api;
}
