/**
 * Customer-supplied encryption keys (docs/storage-emulator.md, "Customer-supplied encryption
 * keys"). A request carries a key in `x-goog-encryption-algorithm` (`AES256`),
 * `x-goog-encryption-key` (the base64 of 32 bytes) and `x-goog-encryption-key-sha256` (the base64
 * of its SHA-256); a copy or rewrite names the source's key with the `x-goog-copy-source-encryption-`
 * forms. As in Cloud Storage, only the key's SHA-256 is kept, with the object: reading its bytes,
 * or copying from it, needs the same key (400 otherwise, with Cloud Storage's reasons), and its
 * CRC32C and MD5 are shown only to a request that carries the key. The bytes themselves are stored
 * as they came: nothing on this machine reads the data directory but the emulator.
 */
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { StorageError } from './errors.ts';
import type { ObjectState } from './records.ts';

export const DEST_PREFIX = 'x-goog-encryption-';
export const SOURCE_PREFIX = 'x-goog-copy-source-encryption-';

const header = (req: http.IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/** The SHA-256 (base64) of the key a request carries under `prefix`, checked; undefined when none. */
export function requestKey(req: http.IncomingMessage, prefix = DEST_PREFIX): string | undefined {
  const algorithm = header(req, `${prefix}algorithm`);
  const key = header(req, `${prefix}key`);
  const sha = header(req, `${prefix}key-sha256`);
  if (algorithm === undefined && key === undefined && sha === undefined) return undefined;
  if (algorithm !== 'AES256')
    throw new StorageError('invalid', `Missing or unsupported ${prefix}algorithm: only AES256 is supported.`);
  const raw = key === undefined ? Buffer.alloc(0) : Buffer.from(key, 'base64');
  if (raw.length !== 32 || raw.toString('base64') !== key)
    throw new StorageError('invalid', `${prefix}key must be the base64 of a 256-bit key.`);
  const actual = createHash('sha256').update(raw).digest('base64');
  if (sha === undefined) throw new StorageError('required', `Missing ${prefix}key-sha256.`);
  if (sha !== actual)
    throw new StorageError('invalid', `The ${prefix}key-sha256 does not match the encryption key.`);
  return actual;
}

/** Reading `o`'s bytes (download, copy source, compose source, move) with the key `given`. */
export function checkKey(o: ObjectState, given: string | undefined): void {
  if (o.keySha256 === given) return;
  if (given === undefined)
    throw new StorageError(
      'resourceIsEncryptedWithCustomerEncryptionKey',
      'The target object is encrypted by a customer-supplied encryption key.',
    );
  if (o.keySha256 === undefined)
    throw new StorageError(
      'resourceNotEncryptedWithCustomerEncryptionKey',
      'The target object is not encrypted by a customer-supplied encryption key.',
    );
  throw new StorageError('customerEncryptionKeyIsIncorrect', 'The provided encryption key is incorrect.');
}
