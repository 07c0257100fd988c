/**
 * docs/glossary.md is the record of the words (issue #77): every term a newcomer meets in the
 * README is defined there, and the docs use the one word it picks where two competed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f: string): string => readFileSync(join(root, f), 'utf8');

/** The README's terms a newcomer has to know, each as the README writes it. */
const README_TERMS = [
  'producer',
  'gateway',
  'topic',
  'subscription',
  'store',
  'forward',
  'schedule',
  'settings',
  'environment',
  'emulator',
  'studio',
  'console',
  'creator',
  'registry',
  'event definition',
  'translator',
  'sync',
  'token',
  'write key',
  'event catalogue',
  'source catalogue',
  'destination',
  'platform',
  'mapping',
  'target',
  'driver',
  'stand-in',
  'decision',
  'delivery',
  'ledger',
  'dead letter',
  'replay',
  'preview',
  'rule',
  'enrichment',
];

describe('glossary: one word per thing', () => {
  const glossary = read('docs/glossary.md');
  const defined = new Set(
    [...glossary.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => (m[1] as string).toLowerCase()),
  );

  it('defines every term a newcomer meets in the README', () => {
    const readme = read('README.md').toLowerCase().replace(/\s+/g, ' ');
    const unused = README_TERMS.filter((t) => !new RegExp(`\\b${t}`).test(readme));
    assert.deepEqual(unused, [], 'terms the README no longer uses: take them off the list');
    assert.deepEqual(
      README_TERMS.filter((t) => !defined.has(t)),
      [],
      'README terms docs/glossary.md does not define (as **term**)',
    );
  });

  it('names the four things called a catalogue apart, and the erased list with its code alias', () => {
    for (const t of [
      'event catalogue',
      'source catalogue',
      'destination catalogue',
      'manifest',
      'erased list',
    ])
      assert.ok(defined.has(t), t);
    assert.match(glossary, /older name \*\*suppression\*\*/);
  });

  /** Each prose line of the docs (code spans removed) matching `word`, as `file:line: text`. */
  const proseMatching = (word: RegExp): string[] => {
    const markdown = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter(
        (f) =>
          f !== '' &&
          f !== 'docs/glossary.md' &&
          !f.startsWith('test/fixtures/') &&
          existsSync(join(root, f)),
      );
    const problems: string[] = [];
    for (const f of markdown)
      read(f)
        .split('\n')
        .forEach((line, i) => {
          if (word.test(line.replace(/`[^`]*`/g, ''))) problems.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    return problems;
  };

  it('the docs say "erased list", never "suppression" or "erased persons\' list", outside code names', () => {
    assert.deepEqual(proseMatching(/\bsuppression\b|erased persons[’'] list/i), []);
  });

  it('"the catalogue" alone is the event catalogue: its sources and destinations are named', () => {
    // "The catalogue's sources" is the source catalogue, "the catalogue's destinations" the
    // destination catalogue: the bare word means the standard events (docs/glossary.md).
    assert.deepEqual(proseMatching(/\bthe catalogue(['’]s)? (sources|destinations|manifest)\b/i), []);
  });
});
