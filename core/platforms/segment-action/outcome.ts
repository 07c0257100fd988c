/**
 * What an action's failure means for the delivery (docs/catalog-destinations.md, "Outcomes"):
 * actions-core throws `RetryableError`, `IntegrationError` (and its `PayloadValidationError`),
 * `InvalidAuthenticationError`, an `HTTPError` carrying the platform's answer, a timeout, or the
 * schema validator's error; the injected fetch's network failures arrive marked (run.ts). Read by
 * their names, codes and statuses, not by class, so this file loads nothing of actions-core. The
 * reason goes to the ledger: the message and the platform's answer are scrubbed of identifiers and
 * the request's secrets (platform-answer.ts), as CRMs echo the e-mail they refused. Pure.
 */
import { EGRESS_REFUSED_CODE } from '../../egress/policy.ts';
import type { Outcome } from '../driver.ts';
import { scrubText } from '../platform-answer.ts';
import { snippet } from '../responses.ts';

/** The parts of a thrown error the classification reads. */
interface ThrownError {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly status?: unknown;
  readonly response?: { readonly status?: unknown; readonly content?: unknown; readonly data?: unknown };
}

/** The code run.ts gives a failure of the injected fetch (a refused connection, a timeout). */
export const NETWORK_ERROR_CODE = 'segment-action:network-error';

/** Statuses worth another attempt: a timeout, throttling, and the platform's own failures (not 501). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || (status >= 500 && status !== 501);
}

/**
 * The outcome of an action that threw `err`: `retry` for RetryableError, a network failure, a
 * timeout, 429 and 5xx; `rejected` for IntegrationError, PayloadValidationError, a payload that
 * fails the action's schema, 4xx, and anything else (a fault of the action's own code is not
 * fixed by sending again). The reason names the action and carries the error's message, scrubbed,
 * with `secrets` (the request's secrets' values) removed.
 */
export function outcomeOfError(action: string, err: unknown, secrets: readonly string[] = []): Outcome {
  const e = (err ?? {}) as ThrownError;
  const name = typeof e.name === 'string' ? e.name : 'Error';
  const message = scrubText(
    typeof e.message === 'string' && e.message !== '' ? e.message : String(err),
    secrets,
  );
  const responseStatus = typeof e.response?.status === 'number' ? e.response.status : undefined;
  const status = responseStatus ?? (typeof e.status === 'number' ? e.status : undefined);
  const withStatus = (o: { status: 'retry' | 'rejected'; reason: string }): Outcome =>
    status !== undefined ? { ...o, httpStatus: status } : o;
  // Not sent at all: the reason is the gate's own (`egress refused: <why>`), named by the action.
  if (e.code === EGRESS_REFUSED_CODE) return { status: 'rejected', reason: `${message} (${action})` };
  if (e.code === NETWORK_ERROR_CODE) return { status: 'retry', reason: `${action}: ${message}` };
  if (name === 'RetryableError' || e.code === 'RETRYABLE_ERROR')
    return withStatus({ status: 'retry', reason: `${action}: ${message}` });
  if (name === 'TimeoutError' || name === 'RequestTimeoutError' || e.code === 'REQUESTTIMEOUTERROR')
    return withStatus({ status: 'retry', reason: `${action}: ${message}` });
  if (name === 'AggregateAjvError' || name === 'ValidationError')
    return {
      status: 'rejected',
      reason: `${action}: the payload does not fit the action's fields: ${message}`,
    };
  if (responseStatus !== undefined) {
    const detail = `${action}: ${message}${answerSnippet(e.response?.content, secrets)}`;
    return withStatus({ status: isRetryableStatus(responseStatus) ? 'retry' : 'rejected', reason: detail });
  }
  if (name === 'InvalidAuthenticationError')
    return withStatus({ status: 'rejected', reason: `${action}: credentials refused: ${message}` });
  // IntegrationError and PayloadValidationError: permanent, unless their status says throttled or down.
  if (status !== undefined && isRetryableStatus(status))
    return withStatus({ status: 'retry', reason: `${action}: ${message}` });
  return withStatus({ status: 'rejected', reason: `${action}: ${message}` });
}

/** The start of the platform's answer, scrubbed, when it said something beyond the status line. */
function answerSnippet(content: unknown, secrets: readonly string[]): string {
  if (typeof content !== 'string') return '';
  const s = scrubText(snippet(content), secrets);
  return s ? ` (${s})` : '';
}

/**
 * One outcome for the event from its actions' outcomes: a retry if any action should be tried
 * again (the whole event is redelivered), else rejected if any was refused, else delivered; the
 * reasons of those that did not deliver, joined.
 */
export function combineOutcomes(
  outcomes: readonly { readonly action: string; readonly outcome: Outcome }[],
): Outcome {
  const failing = (status: 'retry' | 'rejected') =>
    outcomes.filter((o) => o.outcome.status === status).map((o) => o.outcome);
  for (const status of ['retry', 'rejected'] as const) {
    const list = failing(status);
    const first = list[0];
    if (first === undefined) continue;
    const reason = list.map((o) => (o.status === 'delivered' ? '' : o.reason)).join('; ');
    return first.httpStatus !== undefined
      ? { status, reason, httpStatus: first.httpStatus }
      : { status, reason };
  }
  const delivered = outcomes.map((o) => o.action).join(', ');
  const httpStatus = outcomes.map((o) => o.outcome.httpStatus).find((s) => s !== undefined);
  return httpStatus !== undefined
    ? { status: 'delivered', detail: `actions: ${delivered}`, httpStatus }
    : { status: 'delivered', detail: `actions: ${delivered}` };
}
