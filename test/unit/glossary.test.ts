/**
 * docs/glossary.md is the record of the words (issues #77, #99): every term a newcomer meets in
 * the README and the docs' first screens is defined there, with each round's own words, and the
 * docs use the one word it picks where two competed.
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

/** This round's own words (issue #99): the promises and signals the code now names. */
const ROUND_TERMS = [
  'claim',
  'identity claim',
  'send-once claim',
  'egress',
  'egress gate',
  'trace',
  'trace context',
  'consent purpose',
  'tcf',
  'tcf vendor id',
  'gpp',
  'cmp',
  'click id',
  'platform facts',
];

/** Terms the docs' first screens use that a reader meets before any definition on the page. */
const FIRST_SCREEN_TERMS = [
  'runtime resource',
  'alert',
  'warehouse',
  'storage first',
  'tag',
  'spans',
  'trace',
  'write key',
  'decision',
  'ledger',
  'translator',
  'registry',
  'enrichment',
  'stand-in',
  'emulator',
  'studio',
  'sync',
  'claim',
];

/** A page's first screen: its first 20 lines, lower-cased, one space for any run of white. */
const FIRST_SCREEN_LINES = 20;

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

  it("defines this round's words: claims, egress, traces, consent purposes, TCF, GPP, click ids, platform facts", () => {
    assert.deepEqual(
      ROUND_TERMS.filter((t) => !defined.has(t)),
      [],
      'words docs/glossary.md does not define (as **term**)',
    );
  });

  it("defines every listed term the docs' first screens use, and each is still used there", () => {
    const pages = execFileSync('git', ['ls-files', 'README.md', 'docs/*.md'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f !== '' && f !== 'docs/glossary.md' && existsSync(join(root, f)));
    const screens = pages.map((f) =>
      read(f).split('\n').slice(0, FIRST_SCREEN_LINES).join(' ').toLowerCase().replace(/\s+/g, ' '),
    );
    const unused = FIRST_SCREEN_TERMS.filter((t) => !screens.some((s) => new RegExp(`\\b${t}`).test(s)));
    assert.deepEqual(unused, [], 'terms no first screen uses any more: take them off the list');
    assert.deepEqual(
      FIRST_SCREEN_TERMS.filter((t) => !defined.has(t)),
      [],
      'first-screen terms docs/glossary.md does not define (as **term**)',
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
