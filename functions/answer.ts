/**
 * How the functions refuse a request, in the entry points' one error style (core/step.ts): a
 * check returns a Step, and the handler writes a failed one as Google's error envelope. Shared
 * by store, forward and schedule, each pushed by Pub/Sub.
 */
import type { Request, Response } from '@google-cloud/functions-framework';
import { type ApiError, apiError } from '../core/errors.ts';
import { ok, refuse, type Step } from '../core/step.ts';

/** One value for every push that passes: no object made per request on the hot path. */
const POSTED: Step<void> = ok(undefined);

/** Pub/Sub pushes with POST; anything else is answered 405, with POST in `Allow`. */
export function postOnly(req: Request): Step<void> {
  if (req.method === 'POST') return POSTED;
  const e = apiError('METHOD_NOT_ALLOWED', { method: req.method, path: req.path });
  return refuse({ ...e, headers: { ...e.headers, allow: 'POST' } });
}

/** Answers with an error: its status, its headers (Allow, Retry-After) and its envelope. */
export function answerError(res: Response, error: ApiError): void {
  res.status(error.http).set(error.headers).json(error.body);
}
