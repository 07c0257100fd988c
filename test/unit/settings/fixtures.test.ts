/**
 * Settings fixtures: every file under valid/ loads; every file under invalid/ fails with an
 * error naming the key its first line announces (`# expect: destinations[1].type`), and only
 * that key; a second line `# says: <regex>` also fixes the one message's words.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { plan } from '../../../core/plan.ts';
import { formatErrors, parseSettings } from '../../../core/settings.ts';

const dir = resolve(import.meta.dirname, '../../fixtures/settings');
const files = (kind: 'valid' | 'invalid') =>
  readdirSync(join(dir, kind))
    .filter((f) => f.endsWith('.yaml'))
    .sort();

describe('settings fixtures', () => {
  it('has fixtures in both folders', () => {
    assert.ok(files('valid').length >= 2);
    assert.ok(files('invalid').length >= 10);
  });

  for (const file of files('valid')) {
    it(`valid/${file} loads and is frozen`, () => {
      const result = parseSettings(readFileSync(join(dir, 'valid', file), 'utf8'));
      assert.ok(result.ok, result.ok ? '' : formatErrors(result.errors));
      assert.ok(Object.isFrozen(result.settings));
    });
  }

  for (const file of files('invalid')) {
    it(`invalid/${file} names its key`, () => {
      const text = readFileSync(join(dir, 'invalid', file), 'utf8');
      const expected = /^# expect: (\S+)/.exec(text)?.[1];
      assert.ok(expected, `${file} must start with "# expect: <key>"`);
      const result = parseSettings(text);
      assert.equal(result.ok, false, `${file} was accepted`);
      assert.ok(!result.ok);
      // Only on that key: each fixture shows one mistake, so it fails for the reason it names.
      assert.ok(
        result.errors.length > 0 && result.errors.every((e) => e.field === expected),
        `expected errors on ${expected} only, got:\n${formatErrors(result.errors)}`,
      );
      // `# says: <regex>` on the second line: what the message must say, once.
      const says = /^.*\n# says: (.+)$/m.exec(text)?.[1];
      if (says) {
        assert.equal(result.errors.length, 1, formatErrors(result.errors));
        assert.match(result.errors[0]?.description ?? '', new RegExp(says));
      }
    });
  }

  it('reports every error at once', () => {
    const result = parseSettings(
      'name: Bad Name\nregion: nowhere\ndestinations:\n  - { id: a, type: fax }\n',
    );
    assert.ok(!result.ok);
    const fields = result.errors.map((e) => e.field).sort();
    assert.deepEqual(fields, ['destinations[0].type', 'name', 'project', 'region']);
  });

  it('takes durations in seconds or minutes and hands Pub/Sub seconds', () => {
    const result = parseSettings(
      'name: shop\nproject: shop-project\nregion: europe-west1\nretry: { minimum_backoff: 0.5s, maximum_backoff: 5m }\n',
    );
    assert.ok(result.ok, result.ok ? '' : formatErrors(result.errors));
    const store = plan(result.settings).subscriptions.find((s) => s.kind === 'store');
    assert.deepEqual(store?.retryPolicy, { minimumBackoff: '0.5s', maximumBackoff: '300s' });
  });

  it('the environments of the repository are valid', () => {
    for (const name of ['local', 'example']) {
      const result = parseSettings(readFileSync(resolve(dir, `../../../environments/${name}.yaml`), 'utf8'));
      assert.ok(result.ok, result.ok ? '' : formatErrors(result.errors));
    }
  });
});
