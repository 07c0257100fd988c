/**
 * The generated parts of the docs (scripts/docs-generate.ts) are what is committed: the settings
 * reference against schemas/settings.ts, the platform table and the API version tables (README.md
 * too) against core/platforms/platforms.ts. The creator's corpus figures (docs/creator-inference.md)
 * are checked by test/unit/creator-corpus.test.ts, from the measure it makes anyway: measuring the
 * corpus here too cost test:fast half a CPU-second.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLATFORM_LIST } from '../../../core/platforms/platforms.ts';
import { generatedDocs } from '../../../scripts/docs-generate.ts';
import { fill } from '../../../scripts/docs-markers.ts';
import { settingRows } from '../../../scripts/docs-settings.ts';
import { SETTINGS_NOTES } from '../../../scripts/docs-settings-notes.ts';

const root = join(import.meta.dirname, '../../..');

describe('scripts: docs-generate', () => {
  for (const [file, text] of generatedDocs(root, (part) => part !== 'creator-corpus'))
    it(`${file} is what \`npm run docs\` writes`, () => {
      assert.ok(readFileSync(join(root, file), 'utf8') === text, `${file} is stale: run \`npm run docs\``);
    });

  it('the platform table has a row per platform, the settings reference a row per key', () => {
    const platforms = readFileSync(join(root, 'docs/platforms.md'), 'utf8');
    for (const p of PLATFORM_LIST) assert.ok(platforms.includes(`| \`${p.type}\` |`), p.type);
    const settings = readFileSync(join(root, 'docs/settings.md'), 'utf8');
    for (const r of settingRows()) assert.ok(settings.includes(`| \`${r.key}\` |`), r.key);
  });

  it("the README's and docs/platforms.md's API version tables give each platform's declared version and sunset", () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const platforms = readFileSync(join(root, 'docs/platforms.md'), 'utf8');
    for (const p of PLATFORM_LIST) {
      const { version, sunset } = p.apiVersion;
      const cells = `${version === null ? 'unversioned' : `\`${version}\``} | ${sunset ?? (version === null ? '—' : 'none published')} |`;
      assert.ok(readme.includes(` | ${cells}`), `README.md: ${p.type}`);
      assert.ok(platforms.includes(`| \`${p.type}\` | ${cells}`), `docs/platforms.md: ${p.type}`);
    }
  });

  it('every note names a key the schema has, and fills a cell the schema leaves empty', () => {
    const rows = new Map(settingRows().map((r) => [r.key, r]));
    const stale = Object.keys(SETTINGS_NOTES).filter((key) => !rows.has(key));
    assert.deepEqual(stale, [], 'notes for keys schemas/settings.ts does not have');
  });

  it('refuses a file without the markers, rather than writing nothing', () => {
    assert.throws(
      () => fill('# no markers\n', 'settings', 'x', 'a-page.md'),
      /no <!-- generated:settings -->/,
    );
    assert.equal(
      fill('a\n<!-- generated:p -->\nold\n<!-- /generated -->\nb\n', 'p', 'new', 'f'),
      'a\n<!-- generated:p -->\nnew\n<!-- /generated -->\nb\n',
    );
  });
});
