/**
 * Firestore's REST error envelope (emulators/common/rest-error.ts). Google's client libraries
 * decide on `status`/`code` alone, never on the message, so both must be what Firestore answers
 * (README, "Errors").
 */
import { RestError } from '@eventbus/emulator-common/rest-error.ts';

export class FirestoreError extends RestError {}

export const invalid = (message: string): FirestoreError => new FirestoreError('INVALID_ARGUMENT', message);

export const unsupported = (what: string): FirestoreError =>
  new FirestoreError('UNIMPLEMENTED', `${what} is not supported by the local Firestore emulator.`);
