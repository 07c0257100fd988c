/** A request the studio refuses, with the error it answers (the gateway's envelope). */
import type { ApiError } from '../core/errors.ts';

export class Refusal extends Error {
  readonly error: ApiError;
  constructor(error: ApiError) {
    super(error.body.error.message);
    this.error = error;
  }
}
