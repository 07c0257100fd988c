/**
 * Secret Manager's REST error envelope (emulators/common/rest-error.ts); the messages are Secret
 * Manager's wording where we know it (README, "Errors").
 */
import { RestError } from '@eventbus/emulator-common/rest-error.ts';

export class SecretManagerError extends RestError {}

export const badRequest = (message: string): SecretManagerError =>
  new SecretManagerError('INVALID_ARGUMENT', message);

export const notImplemented = (what: string): SecretManagerError =>
  new SecretManagerError('UNIMPLEMENTED', `${what} is not supported by the local Secret Manager emulator.`);
