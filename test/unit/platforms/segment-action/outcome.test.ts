/**
 * How an action's failure becomes the delivery's outcome (core/platforms/segment-action/outcome.ts),
 * with actions-core's own error classes: retried for RetryableError, timeouts, network failures,
 * 429 and 5xx; rejected with the message for IntegrationError, PayloadValidationError, schema
 * failures and other 4xx; and one outcome from several actions.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  combineOutcomes,
  NETWORK_ERROR_CODE,
  outcomeOfError,
} from '../../../../core/platforms/segment-action/outcome.ts';

type ErrorClass = new (...args: unknown[]) => Error;
const core = createRequire(import.meta.url)('@segment/actions-core') as Record<string, ErrorClass>;
const {
  IntegrationError,
  RetryableError,
  PayloadValidationError,
  InvalidAuthenticationError,
  RequestTimeoutError,
} = core as Record<string, ErrorClass> & {
  IntegrationError: ErrorClass;
  RetryableError: ErrorClass;
  PayloadValidationError: ErrorClass;
  InvalidAuthenticationError: ErrorClass;
  RequestTimeoutError: ErrorClass;
};

/** An HTTPError as actions-core's request client throws it: the answer under `response`. */
const httpError = (status: number, statusText: string, content = '') =>
  Object.assign(new Error(statusText), { name: 'HTTPError', response: { status, content } });

describe('segment_action: outcomes', () => {
  const cases: [string, unknown, 'retry' | 'rejected', RegExp, number | undefined][] = [
    ['RetryableError', new RetryableError('try later'), 'retry', /^act: try later$/, 500],
    ['HTTP 429', httpError(429, 'Too Many Requests'), 'retry', /Too Many Requests/, 429],
    ['HTTP 503', httpError(503, 'Service Unavailable'), 'retry', /Service Unavailable/, 503],
    [
      'HTTP 400 with a body',
      httpError(400, 'Bad Request', '{"detail":"bad"}'),
      'rejected',
      /Bad Request \(\{"detail":"bad"\}\)/,
      400,
    ],
    ['HTTP 401', httpError(401, 'Unauthorized'), 'rejected', /Unauthorized/, 401],
    ['a timeout', new RequestTimeoutError(), 'retry', /timed out/, 408],
    [
      'a network failure',
      Object.assign(new Error('no answer from x'), { code: NETWORK_ERROR_CODE }),
      'retry',
      /no answer from x/,
      undefined,
    ],
    [
      'IntegrationError',
      new IntegrationError('Invalid Slack URL', 'Bad Request', 400),
      'rejected',
      /^act: Invalid Slack URL$/,
      400,
    ],
    [
      'IntegrationError saying 429',
      new IntegrationError('rate limited', 'RATE_LIMITED', 429),
      'retry',
      /rate limited/,
      429,
    ],
    [
      'PayloadValidationError',
      new PayloadValidationError('email is required'),
      'rejected',
      /^act: email is required$/,
      400,
    ],
    [
      'InvalidAuthenticationError',
      new InvalidAuthenticationError('bad key'),
      'rejected',
      /credentials refused: bad key/,
      401,
    ],
    [
      'a schema failure',
      Object.assign(new Error("The root value is missing the required field 'x'."), {
        name: 'AggregateAjvError',
      }),
      'rejected',
      /does not fit the action's fields/,
      undefined,
    ],
    [
      'a fault in the action',
      new TypeError('cannot read x of undefined'),
      'rejected',
      /cannot read x/,
      undefined,
    ],
  ];
  for (const [name, err, status, reason, httpStatus] of cases)
    it(`${name} → ${status}`, () => {
      const o = outcomeOfError('act', err);
      assert.equal(o.status, status);
      assert.match('reason' in o ? o.reason : '', reason);
      assert.equal(o.httpStatus, httpStatus);
    });

  it('the reason keeps no identifier or secret the platform or the action echoed', () => {
    const answer =
      '{"errors":[{"detail":"A profile already exists with email ada@example.com, key pk_live_1"}]}';
    const o = outcomeOfError('act', httpError(409, 'Conflict', answer), ['pk_live_1']);
    assert.equal(o.status, 'rejected');
    const reason = 'reason' in o ? o.reason : '';
    assert.match(reason, /^act: Conflict \(.*\[email\], key \[secret\]/);
    assert.doesNotMatch(reason, /ada@example\.com|pk_live_1/);
    const thrown = outcomeOfError('act', new IntegrationError('no contact +14155552671', 'NOT_FOUND', 404));
    assert.equal('reason' in thrown ? thrown.reason : '', 'act: no contact [phone]');
  });

  it('several actions: a retry wins over a rejection, a rejection over deliveries; reasons joined', () => {
    const delivered = { status: 'delivered' as const, httpStatus: 202 };
    assert.deepEqual(
      combineOutcomes([
        { action: 'a', outcome: delivered },
        { action: 'b', outcome: { status: 'rejected', reason: 'b: no', httpStatus: 400 } },
        { action: 'c', outcome: { status: 'retry', reason: 'c: later', httpStatus: 429 } },
      ]),
      { status: 'retry', reason: 'c: later', httpStatus: 429 },
    );
    assert.deepEqual(
      combineOutcomes([
        { action: 'a', outcome: { status: 'rejected', reason: 'a: no' } },
        { action: 'b', outcome: { status: 'rejected', reason: 'b: no', httpStatus: 400 } },
      ]),
      { status: 'rejected', reason: 'a: no; b: no' },
    );
    assert.deepEqual(
      combineOutcomes([
        { action: 'a', outcome: delivered },
        { action: 'b', outcome: { status: 'delivered' } },
      ]),
      { status: 'delivered', detail: 'actions: a, b', httpStatus: 202 },
    );
  });
});
