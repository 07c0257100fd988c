/** Every error reason the emulator can answer is documented (fastify's registry habit). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ApiError, REASONS } from '../../../emulators/bigquery/errors.ts';

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
