/**
 * The docs are true by construction: the repository stands on its own (no file cites a design
 * document outside it, every `docs/<name>.md` cited exists), every repository path a page cites
 * exists, no sentence lists platforms by hand, the functions the docs name are the ones plan()
 * deploys, the README stays a tour, and every picture under docs/img is written by a test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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
const OUTSIDE =
  /\b(GCP-WIRE|DESIGN\.md|DESIGN §|PLATFORMS(-\d+)?\.md|PLATFORMS §|STYLE\.md|SEED\.md)|\bshared\/[A-Z]/;

describe('docs: the repository stands alone', () => {
  it('no tracked file cites a document outside the repository', () => {
    const self = 'test/unit/docs.test.ts';
    const found = tracked
      .filter((f) => f !== self)
      .flatMap((f) =>
        text(f)
          .split('\n')
          .flatMap((line, i) => (OUTSIDE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    assert.deepEqual(found, []);
  });

  it('every docs/<name>.md that a file cites exists', () => {
    const missing = new Set<string>();
    for (const f of tracked) {
      const body = text(f);
      for (const m of body.matchAll(/\bdocs\/([a-z0-9-]+\.md)/g)) {
        if (!existsSync(join(root, 'docs', m[1] as string))) missing.add(`${f} cites docs/${m[1]}`);
      }
      if (f.startsWith('docs/')) {
        for (const m of body.matchAll(/\]\(([a-z0-9-]+\.md)(#[^)]*)?\)/g)) {
          if (!existsSync(join(root, 'docs', m[1] as string))) missing.add(`${f} links ${m[1]}`);
        }
      }
    }
    assert.deepEqual([...missing], []);
  });
});

/** README.md and the docs pages this suite checks (the emulators' and bench pages are others'). */
const OTHERS = new Set([
  'docs/style.md',
  'docs/bench.md',
  'docs/pubsub-emulator.md',
  'docs/storage-emulator.md',
  'docs/bigquery-emulator.md',
  'docs/firestore-emulator.md',
]);
const pages = tracked.filter((f) => (f === 'README.md' || /^docs\/.*\.md$/.test(f)) && !OTHERS.has(f));
// Each file read once: several checks below read every tracked file.
const texts = new Map<string, string>();
const text = (f: string): string => {
  const t = texts.get(f) ?? readFileSync(join(root, f), 'utf8');
  texts.set(f, t);
  return t;
};

describe('docs: what can drift', () => {
  it('the README is a tour: at most 400 lines', () => {
    const lines = text('README.md').split('\n').length;
    assert.ok(lines <= 400, `README.md has ${lines} lines; move reference into docs/`);
  });

  it('every repository path a page cites (in backticks or a link) exists', () => {
    const TOP =
      'core|functions|adapters|gateway|studio|cli|local|infra|schemas|scripts|test|bench|emulators|environments|examples|sources|docs';
    const missing: string[] = [];
    for (const f of pages) {
      const cited = [
        ...[...text(f).matchAll(new RegExp(`\`((?:${TOP})/[^\\s\`]*)\``, 'g'))].map((m) => m[1] as string),
        ...[...text(f).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
          .map((m) => m[1] as string)
          .filter((l) => !/^[a-z]+:/.test(l))
          .map((l) => relative(root, join(root, dirname(f), l))),
      ];
      for (const raw of cited) {
        const path = raw.replace(/[.,:;]+$/, '');
        // Patterns and placeholders (`core/platforms/<platform>/`, `test/**`, `{a,b}`) name no one file.
        if (
          /[<>*{}…$]/.test(path) ||
          !new RegExp(`^(${TOP}|README\\.md|LICENSE|Pulumi\\.yaml|package\\.json)`).test(path)
        )
          continue;
        if (!existsSync(join(root, path))) missing.push(`${f} cites ${raw}`);
      }
    }
    assert.deepEqual([...new Set(missing)], []);
  });

  it('every file a markdown page names by its bare name (`x.ts`) is a tracked file of that name', () => {
    const everything = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
    const names = new Set(everything.map((f) => f.slice(f.lastIndexOf('/') + 1)));
    const markdown = everything.filter(
      (f) => f.endsWith('.md') && !f.startsWith('test/fixtures/') && existsSync(join(root, f)),
    );
    // Settings and payload fields that end like a file: a rule's `trigger.sql`, a form's `data.json`.
    const FIELDS = new Set(['trigger.sql', 'data.json']);
    const missing: string[] = [];
    for (const f of markdown)
      for (const m of text(f).matchAll(/`([A-Za-z0-9_.-]+\.(?:ts|mjs|cjs|json|yaml|html|css|sql))`/g)) {
        const name = m[1] as string;
        if (!names.has(name) && !FIELDS.has(name)) missing.push(`${f} names ${name}`);
      }
    assert.deepEqual([...new Set(missing)], []);
  });

  it('no sentence lists three or more platforms by hand: the generated table lists them', async () => {
    const { sentences, platformsNamed } = await import('../../scripts/docs-prose.ts');
    // Sentences comparing particular platforms' own fields or rules, which name them on purpose.
    const COMPARISONS: readonly [string, string][] = [
      ['docs/console.md', 'for the later platforms'],
      ['docs/delivery.md', 'kill -9'],
      ['docs/enrichment.md', 'click ids of the next platforms'],
      ['docs/linkage.md', 'documented set is left out'],
      ['docs/platforms.md', 'One classifier'],
      ['docs/platforms.md', 'The gmail rule'],
      ['docs/sources/README.md', 'Stripe, Shopify'],
    ];
    const found: string[] = [];
    for (const f of pages)
      for (const s of sentences(text(f))) {
        const named = platformsNamed(s.text);
        if (named.length < 3 || COMPARISONS.some(([file, part]) => file === f && s.text.includes(part)))
          continue;
        found.push(`${f}:${s.line} names ${named.join(', ')}: ${s.text.slice(0, 120)}`);
      }
    assert.deepEqual(found, []);
  });

  it("the README's map and docs/architecture.md name the functions and services plan() deploys", async () => {
    const { plan } = await import('../../core/plan.ts');
    const { checkSettings } = await import('../../core/settings.ts');
    const house = (extra: Record<string, unknown> = {}) =>
      checkSettings({ name: 'house', project: 'house-project', region: 'europe-west1', ...extra });
    const checked = house();
    assert.ok(checked.ok);
    const deployed = plan(checked.settings);
    // Every deployable is a folder of functions/ (the code), and plan() deploys them all once a
    // segment_action destination asks for forward-catalog.
    const functions = readdirSync(join(root, 'functions'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const withCatalogue = house({
      destinations: [
        { id: 'crm', type: 'segment_action', destination: 'klaviyo', secrets: { api_key: 'k' } },
      ],
    });
    assert.ok(withCatalogue.ok, JSON.stringify(withCatalogue));
    assert.deepEqual(
      plan(withCatalogue.settings)
        .functions.map((f) => f.name)
        .sort(),
      functions,
    );
    const readme = text('README.md');
    const line = readme.split('\n').find((l) => /^functions\/\S+\//.test(l)) ?? '';
    const named = [...line.matchAll(/functions\/([a-z-]+)\//g)].map((m) => m[1]);
    assert.deepEqual(named.sort(), functions, line);
    const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six'];
    assert.match(line, new RegExp(`the ${WORDS[functions.length]} functions plan\\(\\) deploys`));
    // No page counts them otherwise ("the three functions").
    for (const f of pages)
      for (const [i, w] of WORDS.entries())
        if (i !== functions.length)
          assert.doesNotMatch(
            text(f),
            new RegExp(`\\bthe ${w} functions\\b`, 'i'),
            `${f} says "the ${w} functions"`,
          );
    const arch = text('docs/architecture.md');
    for (const f of functions)
      assert.ok(arch.includes(`functions/${f}/`), `docs/architecture.md names functions/${f}/`);
    assert.doesNotMatch(arch, /being built/);
    // How many of them are Cloud Functions depends on `cost.billing`: no page counts them so.
    for (const f of pages)
      assert.doesNotMatch(
        text(f),
        /\b(one|two|three|four|five|six|\d) Cloud Functions\b/,
        `${f} counts Cloud Functions`,
      );
    // The gateway and the studio are services beside the functions.
    assert.ok(deployed.gateway && deployed.studio);
    for (const f of ['README.md', 'docs/architecture.md'])
      assert.match(text(f), /gateway and the studio (are|as) Cloud Run services/, f);
    // What is a function and what is a service (issue #60): the same sentence in the three pages,
    // true of plan(): Cloud Functions by default, Cloud Run services only where cost.billing says.
    const SAME =
      '`store` and `forward` are gen2 Cloud Functions (request-based billing) unless `cost.billing` makes them instance-billed Cloud Run services';
    const flat = (f: string) => text(f).replace(/\s+/g, ' ');
    for (const f of ['README.md', 'docs/architecture.md', 'docs/deploy.md']) {
      assert.ok(flat(f).includes(SAME), `${f} says: ${SAME}`);
      assert.doesNotMatch(flat(f), /the (cost )?model (chooses|does)\b/, `${f}: no model picks the billing`);
    }
    const { deployedServiceName } = await import('../../core/deploy/service-names.ts');
    const billed = (billing: 'request' | 'instance') => {
      const c = house({ cost: { billing: { store: billing, forward: billing } } });
      return plan(c.ok ? c.settings : assert.fail('settings'));
    };
    for (const [p, billing] of [
      [deployed, 'request'],
      [billed('request'), 'request'],
      [billed('instance'), 'instance'],
    ] as const) {
      for (const f of p.functions.filter((x) => x.name !== 'schedule')) {
        assert.equal(f.billing, billing, f.name);
        assert.equal(f.service, deployedServiceName(f.name, billing));
        // docs/deploy.md names each shape's Cloud Run service as plan() does.
        assert.ok(text('docs/deploy.md').includes(`\`${f.service}\``), `docs/deploy.md names ${f.service}`);
      }
    }
  });
});

describe('docs: the front pages count what the code has', () => {
  it("the README names the studio's pages as its navigation does, and docs/studio.md shows each", () => {
    const nav = [...text('studio/web/common.ts').matchAll(/\{ href: '([^']+)', label: '([^']+)' \}/g)].map(
      (m) => ({ href: m[1] as string, label: m[2] as string }),
    );
    assert.ok(nav.length >= 8, `the navigation lists ${nav.length} pages`);
    const WORDS = [
      'zero',
      'one',
      'two',
      'three',
      'four',
      'five',
      'six',
      'seven',
      'eight',
      'nine',
      'ten',
      'eleven',
      'twelve',
    ];
    const flat = text('README.md').replace(/\s+/g, ' ');
    const sentence = /The studio's (\w+) pages — (.+?) — are shown/.exec(flat);
    assert.ok(sentence, "README.md has no sentence naming the studio's pages");
    assert.equal(
      sentence[1],
      WORDS[nav.length],
      `README.md counts ${sentence[1]} pages; the navigation has ${nav.length}`,
    );
    const listed = (sentence[2] as string).split(/, (?:and )?/).map((x) => x.trim().toLowerCase());
    assert.deepEqual(
      listed,
      nav.map((p) => p.label.toLowerCase()),
    );
    for (const p of nav)
      assert.ok(
        text('docs/studio.md').includes(`### \`${p.href}\` — ${p.label}`),
        `docs/studio.md shows ${p.href}`,
      );
  });
});

describe('docs: every picture is written by a test', () => {
  const images = readdirSync(join(root, 'docs/img')).filter((n) => n.endsWith('.png'));
  const tests = tracked.filter((f) => /^test\/.*\.ts$/.test(f)).map(text);
  // The files that name a picture at all: the only ones the `.png` searches below can match.
  const withPng = tests.filter((t) => t.includes('.png'));

  it('each image under docs/img is named by a test file that writes it', () => {
    // A test writes `<name>.png`, or `${…}-<size>.png` for a size it names (every-page's pictures).
    const written = (name: string) =>
      tests.some((t) => t.includes(`'${name}'`)) ||
      withPng.some((t) => t.includes(`${name}.png`)) ||
      withPng.some((t) => t.includes(`${name.replace(/-(desktop|phone)$/, '')}-\${size.name}.png`)) ||
      withPng.some((t) => {
        const m = /^(.+)-(desktop|phone)\.png$/.exec(name);
        return (
          m !== null &&
          t.includes(`-${'$'}{size.name}.png`) &&
          t.includes(`name: '${m[2]}'`) &&
          t.includes(`'${m[1]}'`)
        );
      });
    assert.deepEqual(
      images.filter((n) => !written(n.replace(/\.png$/, '')) && !written(n)),
      [],
    );
  });

  it('each image is shown by a page, and each picture a page shows exists', () => {
    const shown = pages.flatMap((f) =>
      [...text(f).matchAll(/img\/([a-z0-9-]+\.png)/g)].map((m) => [f, m[1] as string]),
    );
    assert.deepEqual(
      images.filter((n) => !shown.some(([, s]) => s === n)),
      [],
      'pictures no page shows',
    );
    assert.deepEqual(
      shown.filter(([, s]) => !images.includes(s as string)).map(([f, s]) => `${f}: ${s}`),
      [],
    );
  });
});
