/**
 * The catalogue manifest of Segment Action Destinations as `npm run docs` generates it
 * (scripts/segment-catalog.ts, in a child process so Segment's 170 destination modules stay out
 * of this one; about a second of CPU, hence here and not in test:fast): the committed
 * core/platforms/segment-action/catalog.json is what a fresh generation writes from the installed
 * package (the whole file is compared, not only its version stamp), and what a generation holds.
 * The generator's pure rules are test/unit/scripts/segment-catalog.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CatalogManifest } from '../../core/platforms/segment-action/catalog.ts';
import { CATALOG_FILE, catalogText, installedVersion } from '../../scripts/segment-catalog.ts';

const SCRIPT = join(resolve(import.meta.dirname, '../..'), 'scripts/segment-catalog.ts');

describe('scripts: segment-catalog, generated', function () {
  this.timeout(60_000);
  let text: string;
  let fresh: CatalogManifest;
  before(() => {
    text = execFileSync(process.execPath, [SCRIPT, '--print'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    fresh = JSON.parse(text) as CatalogManifest;
  });

  it('the committed catalog.json is what `npm run docs` writes now (run it when this fails)', () => {
    const committed = readFileSync(CATALOG_FILE, 'utf8');
    assert.equal(JSON.parse(committed).version, installedVersion(), 'stamped with the installed version');
    assert.ok(committed === text, 'catalog.json is stale: run `npm run docs`');
    assert.equal(catalogText(fresh), text, 'the text is the manifest as catalogText writes it');
  });

  it('lists the loadable folders in slug order and records each one that does not load with its error', () => {
    const slugs = fresh.destinations.map((d) => d.slug);
    assert.deepEqual(slugs, [...slugs].sort());
    assert.ok(fresh.destinations.length >= 140, `${fresh.destinations.length} load`);
    for (const u of fresh.unloadable) assert.match(u.reason, /\S/, `${u.slug} says why`);
    assert.ok(!slugs.some((s) => fresh.unloadable.some((u) => u.slug === s)));
  });

  it('keeps descriptions at most 200 characters and every action with its fields', () => {
    for (const d of fresh.destinations) {
      assert.ok((d.description ?? '').length <= 200, d.slug);
      for (const a of d.actions) {
        assert.ok((a.description ?? '').length <= 200, `${d.slug}.${a.key}`);
        for (const f of a.fields)
          assert.ok((f.description ?? '').length <= 200, `${d.slug}.${a.key}.${f.key}`);
      }
    }
    const klaviyo = fresh.destinations.find((d) => d.slug === 'klaviyo');
    const track = klaviyo?.actions.find((a) => a.key === 'trackEvent');
    assert.ok(track?.defaultSubscription, 'the subscription is kept');
    assert.ok(
      track.fields.some((f) => f.required && f.default !== undefined),
      'required fields with presets',
    );
    assert.deepEqual(
      klaviyo?.authFields.map((f) => [f.key, f.type, f.required, f.secret]),
      [['api_key', 'password', true, true]],
    );
    const pipedrive = fresh.destinations.find((d) => d.slug === 'pipedrive');
    assert.deepEqual(
      pipedrive?.authFields.filter((f) => f.secret).map((f) => f.key),
      ['apiToken'],
      'a string field named a token is a secret; the domain is config',
    );
  });

  it('has at least 140 destinations taking their credentials from settings (the issue measured 140 of 170)', () => {
    const oauth = fresh.destinations.filter((d) => d.auth === 'oauth2' || d.auth === 'oauth-managed');
    assert.ok(fresh.destinations.length - oauth.length >= 140);
  });
});
