/**
 * The repository stands on its own: no file cites a design document that lives outside it, and
 * every `docs/<name>.md` a source file or doc points to exists.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter(
    (f) =>
      /\.(ts|mjs|cjs|md|yaml|json)$/.test(f) && !f.startsWith('test/fixtures/') && f !== 'package-lock.json',
  )
  .filter((f) => existsSync(join(root, f)));

// The briefing documents the project started from; what the code relies on is in docs/ now.
const OUTSIDE = /\b(GCP-WIRE|DESIGN\.md|DESIGN §|PLATFORMS\.md|PLATFORMS §|STYLE\.md|SEED\.md)/;

describe('docs: the repository stands alone', () => {
  it('no tracked file cites a document outside the repository', () => {
    const self = 'test/unit/docs.test.ts';
    const found = tracked
      .filter((f) => f !== self)
      .flatMap((f) =>
        readFileSync(join(root, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (OUTSIDE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    assert.deepEqual(found, []);
  });

  it('every docs/<name>.md that a file cites exists', () => {
    const missing = new Set<string>();
    for (const f of tracked) {
      const text = readFileSync(join(root, f), 'utf8');
      for (const m of text.matchAll(/\bdocs\/([a-z0-9-]+\.md)/g)) {
        if (!existsSync(join(root, 'docs', m[1] as string))) missing.add(`${f} cites docs/${m[1]}`);
      }
      if (f.startsWith('docs/')) {
        for (const m of text.matchAll(/\]\(([a-z0-9-]+\.md)(#[^)]*)?\)/g)) {
          if (!existsSync(join(root, 'docs', m[1] as string))) missing.add(`${f} links ${m[1]}`);
        }
      }
    }
    assert.deepEqual([...missing], []);
  });
});
