import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERRORS } from '../../../core/errors.ts';

/** The error table of docs/gateway.md ("Errors"), the one place the codes are documented. */
function errorTableSource(): { file: string; text: string } {
  const root = join(import.meta.dirname, '../../..');
  return { file: 'docs/gateway.md', text: readFileSync(join(root, 'docs/gateway.md'), 'utf8') };
}

describe('contract: the documented error table matches the registry', () => {
  it('lists every code with its HTTP status and Google status, and nothing else', () => {
    const { file, text } = errorTableSource();
    const rows = new Map<string, { http: number; status: string }>();
    for (const m of text.matchAll(/^\| `([A-Z0-9_]+)` \| (\d{3}) \| ([A-Z_]+) \|/gm)) {
      rows.set(m[1] as string, { http: Number(m[2]), status: m[3] as string });
    }
    for (const [code, spec] of Object.entries(ERRORS)) {
      assert.deepEqual(rows.get(code), { http: spec.http, status: spec.status }, `${file}: ${code}`);
    }
    assert.deepEqual(
      [...rows.keys()].filter((c) => !(c in ERRORS)),
      [],
      `${file} documents unknown codes`,
    );
  });
});
