/**
 * Cloud Storage's naming rules, checked as Cloud Storage checks them (docs/storage-emulator.md):
 * bucket names of 3-63 characters (up to 222 with dots, 63 per dot-separated part) of lowercase
 * letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit, not an IPv4
 * address, not starting with `goog` nor containing `google`; object names of 1-1024 bytes of
 * UTF-8 without carriage return or line feed, and not `.` or `..`.
 */
import { StorageError } from './errors.ts';

const BUCKET_CHARS = /^[a-z0-9][a-z0-9._-]*[a-z0-9]$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function checkBucketName(name: unknown): string {
  if (typeof name !== 'string' || name === '') throw new StorageError('required', 'Required');
  const bad = (): StorageError => new StorageError('invalid', `Invalid bucket name: '${name}'`);
  const limit = name.includes('.') ? 222 : 63;
  if (name.length < 3 || name.length > limit || !BUCKET_CHARS.test(name)) throw bad();
  if (name.split('.').some((part) => part.length === 0 || part.length > 63)) throw bad();
  if (IPV4.test(name) || name.startsWith('goog') || name.includes('google')) throw bad();
  return name;
}

export function checkObjectName(name: unknown): string {
  if (typeof name !== 'string' || name === '') throw new StorageError('required', 'Required');
  if (Buffer.byteLength(name, 'utf8') > 1024)
    throw new StorageError('invalid', 'The maximum object length is 1024 characters, but got a name longer.');
  if (/[\r\n]/.test(name) || name === '.' || name === '..' || !name.isWellFormed())
    throw new StorageError('invalid', `Invalid object name: '${name}'`);
  return name;
}
