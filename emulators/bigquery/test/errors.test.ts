/** Every error reason the emulator can answer is documented (fastify's registry habit). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ApiError, REASONS } from '../errors.ts';
import { unexpectedError } from '../server.ts';

const DOC = readFileSync(new URL('../../../docs/bigquery-emulator.md', import.meta.url), 'utf8');

describe('BigQuery emulator: error registry', () => {
  for (const [reason, status] of Object.entries(REASONS)) {
    it(`documents ${reason} with HTTP ${status}`, () => {
      assert.match(DOC, new RegExp(`\\| \`${reason}\` \\| ${status} \\|`));
    });
  }

  it("renders BigQuery's error body", () => {
    const body = new ApiError('notFound', 'Not found: Table p:d.t').body();
    assert.deepStrictEqual(body, {
      error: {
        code: 404,
        message: 'Not found: Table p:d.t',
        errors: [{ message: 'Not found: Table p:d.t', domain: 'global', reason: 'notFound' }],
        status: 'NOT_FOUND',
      },
    });
  });
});

describe('BigQuery emulator: DuckDB errors that reach the server unmapped', () => {
  it('are invalidQuery in BigQuery words (no DuckDB error class or type names); other errors are backendError', () => {
    const duck = unexpectedError(
      new Error(
        'Binder Error: Cannot compare values of type TIMESTAMP WITH TIME ZONE and type VARCHAR - an explicit cast is required',
      ),
    );
    assert.equal(duck.reason, 'invalidQuery');
    assert.equal(duck.code, 400);
    assert.equal(duck.message, 'No matching signature for operator for argument types: TIMESTAMP, STRING');
    const conversion = unexpectedError(new Error("Conversion Error: Could not convert string 'x' to INT32"));
    assert.equal(conversion.reason, 'invalidQuery');
    assert.doesNotMatch(conversion.message, /Conversion Error/);
    const bug = unexpectedError(new TypeError('x is undefined'));
    assert.equal(bug.reason, 'backendError');
    assert.equal(bug.code, 500);
  });
});
