import assert from 'node:assert/strict';
import { apiError, ERRORS, type ErrorCode, formatMessage } from '../../../core/errors.ts';

const STATUS_BY_HTTP: Record<number, string[]> = {
  // google.rpc.Code maps FAILED_PRECONDITION to 400 as well.
  400: ['INVALID_ARGUMENT', 'FAILED_PRECONDITION'],
  401: ['UNAUTHENTICATED'],
  403: ['PERMISSION_DENIED'],
  404: ['NOT_FOUND'],
  405: ['UNIMPLEMENTED'],
  408: ['DEADLINE_EXCEEDED'],
  409: ['ABORTED', 'ALREADY_EXISTS'],
  413: ['INVALID_ARGUMENT'],
  415: ['INVALID_ARGUMENT'],
  // Not a google.rpc.Code mapping: the IETF Idempotency-Key draft answers a reused key with 422.
  422: ['FAILED_PRECONDITION'],
  429: ['RESOURCE_EXHAUSTED'],
  500: ['INTERNAL'],
  503: ['UNAVAILABLE'],
};

describe('contract: error registry', () => {
  it('pairs every code with a consistent HTTP status and Google status string', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      assert.ok(STATUS_BY_HTTP[spec.http]?.includes(spec.status), `${code}: ${spec.http} ${spec.status}`);
      assert.match(code, /^[A-Z][A-Z0-9_]+$/);
      assert.ok(spec.when.length > 10, `${code} needs a docs line`);
    }
  });

  it("builds Google's envelope with ErrorInfo and BadRequest field violations", () => {
    const e = apiError('INVALID_EVENT', { count: 1 }, [
      { field: '[2].content_name', description: 'is required' },
    ]);
    assert.equal(e.http, 400);
    assert.deepEqual(e.body, {
      error: {
        code: 400,
        message: 'Invalid event: 1 field(s) failed validation.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'INVALID_EVENT',
            domain: 'eventbus',
          },
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: '[2].content_name', description: 'is required' }],
          },
        ],
      },
    });
  });

  it('adds Retry-After to throttling and unavailability', () => {
    for (const code of ['RATE_LIMITED', 'UNAVAILABLE'] as ErrorCode[]) {
      const e = apiError(code, { retryAfter: 2 });
      assert.equal(e.headers['retry-after'], '2');
      assert.match(e.body.error.message, /2 s/);
    }
    assert.deepEqual(apiError('NOT_FOUND', { resource: 'x' }).headers, {});
  });

  it('caps the number of violations returned', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      field: `[${i}].event_name`,
      description: 'is required',
    }));
    const detail = apiError('INVALID_EVENT', { count: 5000 }, many).body.error.details[1];
    assert.ok(detail && 'fieldViolations' in detail && detail.fieldViolations.length === 100);
  });

  it('leaves unknown placeholders visible', () => {
    assert.equal(formatMessage('a {x} {y}', { x: 1 }), 'a 1 {y}');
  });
});
