/**
 * The emulator packages' declared API (scripts/api-report.ts; docs/versioning.md): each package
 * exports its entry points and the types a client needs, never every file, and its committed
 * `api-report.json` is what those entries export now. Every import of a package by its name in
 * the repository goes through a declared export.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  apiReport,
  EMULATOR_PACKAGES,
  exportsOf,
  IAM_EMULATORS,
  permissionsOf,
  reportFile,
  reportText,
  withIamSurface,
} from '../../../scripts/api-report.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('emulator packages: the declared API', () => {
  it('finds the seven packages', () => {
    assert.equal(EMULATOR_PACKAGES.length, 7, EMULATOR_PACKAGES.join(', '));
  });

  for (const dir of EMULATOR_PACKAGES)
    it(`${dir}: exports only named entries, as its api-report.json says (npm run api-report)`, () => {
      const report = apiReport(dir);
      assert.ok(!('./*' in report.exports), `${dir} exports every file`);
      assert.deepEqual(JSON.parse(readFileSync(reportFile(dir), 'utf8')), JSON.parse(reportText(report)));
    });

  for (const dir of IAM_EMULATORS())
    it(`${dir}: its README lists its IAM surface, every permission it checks`, () => {
      const readme = readFileSync(join(root, dir, 'README.md'), 'utf8');
      assert.ok(permissionsOf(dir).length >= 5, `${dir} checks ${permissionsOf(dir).length} permissions`);
      assert.equal(readme, withIamSurface(readme, dir), `${dir}/README.md: run npm run api-report`);
    });

  it('every import of an emulator package by name is of a declared export', () => {
    const declared = new Map(
      EMULATOR_PACKAGES.map((d) => {
        const r = apiReport(d);
        return [r.name, Object.keys(r.exports)] as const;
      }),
    );
    const files = execFileSync('git', ['ls-files', '*.ts', '*.mjs'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '');
    const problems: string[] = [];
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(join(root, f), 'utf8');
      } catch {
        continue;
      }
      for (const m of text.matchAll(/['"](@eventbus\/[a-z-]+)(\/[^'"]+)?['"]/g)) {
        const keys = declared.get(m[1] as string);
        if (keys === undefined) continue;
        const sub = `.${m[2] ?? ''}`;
        const ok = keys.some((k) => k === sub || (k.endsWith('*') && sub.startsWith(k.slice(0, -1))));
        if (!ok) problems.push(`${f} imports ${m[1]}${m[2] ?? ''}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('the report follows re-exports and names each kind (a planted entry)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-report-'));
    writeFileSync(join(dir, 'inner.ts'), 'export interface Shape { a: 1 }\nexport function make() {}\n');
    writeFileSync(
      join(dir, 'entry.ts'),
      "export * from './inner.ts';\nexport type { Shape as Form } from './inner.ts';\nexport const N = 1;\nexport class K {}\n",
    );
    assert.deepEqual(exportsOf(join(dir, 'entry.ts')), [
      'class K',
      'const N',
      'function make',
      'interface Form',
      'interface Shape',
    ]);
  });
});
