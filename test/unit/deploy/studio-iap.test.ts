/**
 * core/deploy/studio-iap.ts: the studio lists against what IAP's managed OAuth client can admit.
 * Consumer accounts and, with `studio.organization`, members outside it are refused by the
 * settings check (naming the key and the reason); without it, one warning; service accounts pass.
 */
import assert from 'node:assert/strict';
import { checkStudioIap, memberDomain, studioIapWarnings } from '../../../core/deploy/studio-iap.ts';
import { checkSettings } from '../../../core/settings.ts';
import type { Settings } from '../../../schemas/settings.ts';

const withStudio = (studio: Settings['studio']): Settings => ({
  name: 'shop',
  project: 'acme-shop-project',
  region: 'europe-west1',
  ...(studio ? { studio } : {}),
});
const fields = (studio: Settings['studio']) => checkStudioIap(withStudio(studio)).map((e) => e.field);

describe('studio IAP admission (core/deploy/studio-iap.ts)', () => {
  it('says nothing when the studio lists name nobody', () => {
    for (const studio of [undefined, {}, { viewers: [], editors: [] }, { organization: 'acme.com' }]) {
      assert.deepEqual(checkStudioIap(withStudio(studio)), []);
      assert.deepEqual(studioIapWarnings(withStudio(studio)), []);
    }
  });

  it('refuses user: and group: members at gmail.com and googlemail.com, with or without an organisation, naming the reason', () => {
    const studio = {
      viewers: ['user:bob@gmail.com', 'user:ana@acme.com'],
      admins: ['group:Fans@GoogleMail.com'],
    };
    const errors = checkStudioIap(withStudio(studio));
    assert.deepEqual(
      errors.map((e) => e.field),
      ['studio.viewers[0]', 'studio.admins[0]'],
    );
    for (const e of errors) {
      assert.match(e.description, /consumer Google account/);
      assert.match(
        e.description,
        /managed OAuth client, which admits only users of the project's organisation/,
      );
      assert.match(e.description, /impersonates/);
    }
    // One error per member: a consumer account is not also "outside the organisation".
    assert.deepEqual(fields({ ...studio, organization: 'acme.com' }), [
      'studio.viewers[0]',
      'studio.admins[0]',
    ]);
  });

  it('with studio.organization, refuses user:, group: and domain: members outside it, naming it', () => {
    const errors = checkStudioIap(
      withStudio({
        organization: 'acme.com',
        viewers: ['domain:partner.example', 'domain:acme.com'],
        editors: ['group:ops@acme.com.evil.example', 'user:eve@notacme.com'],
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.field),
      ['studio.viewers[0]', 'studio.editors[0]', 'studio.editors[1]'],
    );
    for (const e of errors) {
      assert.match(e.description, /outside studio\.organization \(acme\.com\)/);
      assert.match(e.description, /OAuth client of your own .*gcloud run services proxy/);
    }
  });

  it('admits the organisation and its subdomains, whatever the case of the member', () => {
    assert.deepEqual(
      fields({
        organization: 'acme.com',
        viewers: ['domain:acme.com', 'domain:eu.acme.com'],
        editors: ['group:Ops@ACME.com', 'user:ana@sales.eu.acme.com'],
      }),
      [],
    );
  });

  it('allows service accounts of any project: they are the CLI impersonation path', () => {
    const studio = {
      organization: 'acme.com',
      editors: ['serviceAccount:eventbus-operator@other-project.iam.gserviceaccount.com'],
    };
    assert.deepEqual(fields(studio), []);
    assert.equal(memberDomain(studio.editors[0] as string), undefined);
  });

  it('refuses a consumer domain as the organisation', () => {
    assert.deepEqual(fields({ organization: 'gmail.com' }), ['studio.organization']);
  });

  it('without studio.organization, warns once that the managed client admits only the organisation', () => {
    const warnings = studioIapWarnings(
      withStudio({ viewers: ['domain:acme.com'], editors: ['serviceAccount:op@p.iam.gserviceaccount.com'] }),
    );
    assert.equal(warnings.length, 1);
    const [warning] = warnings;
    assert.match(
      warning ?? '',
      /^studio: .*managed OAuth client, which admits only users of the organisation/,
    );
    assert.match(warning ?? '', /a project outside an organisation cannot use it/);
    assert.match(warning ?? '', /Set studio\.organization .*gcloud run services proxy/);
    // Set, the lists are checked instead: no warning.
    assert.deepEqual(
      studioIapWarnings(withStudio({ viewers: ['domain:acme.com'], organization: 'acme.com' })),
      [],
    );
  });

  it('is part of the settings check: a refused member fails it naming the key; a bad domain is refused in words', () => {
    const refused = checkSettings(withStudio({ admins: ['user:bob@gmail.com'] }));
    assert.ok(!refused.ok);
    assert.deepEqual(
      refused.errors.map((e) => e.field),
      ['studio.admins[0]'],
    );
    const bad = checkSettings(withStudio({ organization: 'Acme.com' }));
    assert.ok(!bad.ok);
    assert.deepEqual(
      bad.errors.map((e) => [e.field, e.description]),
      [['studio.organization', 'expected a domain in lower case, like acme.com']],
    );
    assert.ok(checkSettings(withStudio({ organization: 'acme.com', admins: ['user:ana@acme.com'] })).ok);
  });
});
