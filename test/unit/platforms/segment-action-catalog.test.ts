/**
 * The catalogue's reader (core/platforms/segment-action/catalog.ts): one entry by slug, the list,
 * search over slug, name, category, auth kind and action titles, and which auth kinds can be
 * configured from settings and secrets.
 */
import assert from 'node:assert/strict';
import {
  type CatalogEntry,
  catalogEntry,
  catalogList,
  catalogManifest,
  catalogSearch,
  catalogSupported,
  catalogUnsupported,
} from '../../../core/platforms/segment-action/catalog.ts';

describe('platforms: segment-action catalogue', () => {
  it('finds a destination by its folder name, with its auth fields and actions', () => {
    const k = catalogEntry('klaviyo');
    assert.equal(k?.name, 'Klaviyo (Actions)');
    assert.equal(k?.auth, 'api_key');
    assert.ok(k?.actions.some((a) => a.key === 'trackEvent'));
    assert.equal(catalogEntry('no-such-destination'), undefined);
    assert.equal(catalogList(), catalogManifest().destinations);
  });

  it('searches slug, name, category, auth kind and action titles, case-insensitively', () => {
    assert.deepEqual(
      catalogSearch('KLAVIYO').map((d) => d.slug),
      ['klaviyo'],
    );
    assert.ok(catalogSearch('oauth2').every((d) => d.auth === 'oauth2'));
    assert.ok(catalogSearch('Track Event').some((d) => d.slug === 'klaviyo'));
    assert.equal(catalogSearch('  ').length, catalogList().length);
    assert.ok(catalogSearch('messaging').some((d) => d.slug === 'braze'));
  });

  it('supports credentials from settings, and every OAuth destination through an oauth2 connection', () => {
    const of = (slug: string) => catalogSupported(catalogEntry(slug) as CatalogEntry);
    assert.equal(of('klaviyo'), true);
    assert.equal(of('customerio'), true);
    assert.equal(of('hubspot'), true);
    assert.equal(of('salesforce'), true);
    // Every action with a client of its own: refused; one action of several: the others are offered.
    assert.equal(of('kafka'), false);
    assert.equal(of('amazon-eventbridge'), false);
    assert.equal(of('liveramp-audiences'), true);
    const oauth = catalogList().filter((d) => d.auth === 'oauth2' || d.auth === 'oauth-managed');
    assert.equal(oauth.length, 30);
    assert.deepEqual(
      oauth.filter((d) => !catalogSupported(d)).map((d) => d.slug),
      [],
    );
  });

  it('says why one is not supported: its own client, or OAuth the runtime cannot refresh', () => {
    const why = (e: CatalogEntry | undefined) => catalogUnsupported(e as CatalogEntry);
    assert.match(why(catalogEntry('kafka')) ?? '', /client of its own \(kafkajs\)/);
    assert.doesNotMatch(why(catalogEntry('kafka')) ?? '', /OAuth/);
    assert.equal(why(catalogEntry('klaviyo')), undefined);
    assert.equal(why(catalogEntry('liveramp-audiences')), undefined);
    // An OAuth destination whose definition the build did not read (none today: every one has one).
    const salesforce = catalogEntry('salesforce') as CatalogEntry;
    assert.match(why({ ...salesforce, slug: 'not-in-the-catalogue' }) ?? '', /needs OAuth/);
  });
});
