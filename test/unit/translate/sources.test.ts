/**
 * The source catalogue's pure parts (core/translate/sources.ts) and its files (sources/*.yaml):
 * every entry is a valid translator with what a person needs to connect it; consent is granted
 * only when the business says so (a payload's own consent wins); a renamed translator gets its
 * own secret name; the connect text names the URL to paste.
 */
import assert from 'node:assert/strict';
import {
  connectText,
  parseConsent,
  secretName,
  sourceTranslator,
  sourceViolations,
} from '../../../core/translate/sources.ts';
import { runCli } from '../../support/cli.ts';
import { sourceCatalogue } from '../../support/source-catalogue.ts';

type Field = { target: string; value?: unknown; default?: unknown; source?: unknown };
const fields = (spec: Record<string, unknown>) => spec['fields'] as Field[];

describe('the source catalogue', () => {
  const catalogue = sourceCatalogue();
  const get = (name: string) => {
    const s = catalogue.find((x) => x.name === name);
    assert.ok(s, name);
    return s;
  };

  it('holds the thirteen sources of #37, each valid and documented', () => {
    assert.deepEqual(
      catalogue.map((s) => s.name),
      [
        'calendly',
        'ga4-mp',
        'github',
        'hubspot',
        'mailchimp',
        'meta-capi',
        'paddle',
        'segment',
        'shopify',
        'snowplow',
        'stripe',
        'typeform',
        'woocommerce',
      ],
    );
    for (const s of catalogue) assert.deepEqual(sourceViolations(s), [], s.name);
  });

  it('grants no consent by default: no consent field a source does not read from its payload', () => {
    for (const s of catalogue) {
      const own = fields(s.spec).filter((f) => f.target.startsWith('consent.'));
      const made = fields(sourceTranslator(s).spec).filter((f) => f.target.startsWith('consent.'));
      assert.deepEqual(made, own, s.name);
      assert.ok(
        own.every((f) => f.value === undefined && f.default === undefined),
        `${s.name} grants consent itself`,
      );
    }
  });

  it('grants what --consent names: a constant, or the default of a purpose the payload carries', () => {
    const stripe = fields(sourceTranslator(get('stripe'), { consent: ['ads', 'analytics'] }).spec);
    assert.deepEqual(
      stripe.filter((f) => f.target.startsWith('consent.')),
      [
        { target: 'consent.ads', value: 'granted' },
        { target: 'consent.analytics', value: 'granted' },
      ],
    );
    const ga4 = fields(sourceTranslator(get('ga4-mp'), { consent: ['ad_user_data'] }).spec);
    const aud = ga4.filter((f) => f.target === 'consent.ad_user_data');
    assert.equal(aud.length, 1);
    assert.equal(aud[0]?.source, 'consent.ad_user_data');
    assert.equal(aud[0]?.default, 'granted');
  });

  it('reads --consent strictly: a typo is an error, none grants nothing', () => {
    assert.deepEqual(parseConsent('ads, analytics'), { ok: true, purposes: ['ads', 'analytics'] });
    assert.deepEqual(parseConsent('none'), { ok: true, purposes: [] });
    const bad = parseConsent('ads,analytcs');
    assert.equal(bad.ok, false);
    assert.match(bad.ok ? '' : bad.error, /"analytcs"/);
  });

  it('names the signing secret: the source’s own, or one of a renamed translator', () => {
    const stripe = get('stripe');
    assert.equal(secretName(stripe, 'stripe'), 'eventbus-translator-stripe');
    const eu = sourceTranslator(stripe, { name: 'stripe-eu' });
    assert.equal(eu.name, 'stripe-eu');
    assert.deepEqual((eu.spec['auth'] as { signature: { secrets: string[] } }).signature.secrets, [
      'eventbus-translator-stripe-eu',
    ]);
    assert.equal(secretName(get('mailchimp'), 'mailchimp'), undefined);
  });

  it('says what to paste: the endpoint URL, with a token placeholder where the URL carries one', () => {
    const text = connectText(get('stripe'), 'https://events.example/', 'stripe');
    assert.match(text, /Endpoint URL: https:\/\/events\.example\/v1\/translators\/stripe\n/);
    assert.match(
      connectText(get('mailchimp'), 'https://events.example', 'mailchimp'),
      /translators\/mailchimp\/<token>/,
    );
  });

  describe('eventbus source', () => {
    it('lists every source with its title and how it proves itself', async () => {
      const { code, out } = await runCli('source', 'list');
      assert.equal(code, 0);
      assert.match(out, /^stripe\tStripe\tsignature\t/m);
      assert.match(out, /^mailchimp\tMailchimp\turl_token\t/m);
      assert.equal(out.trim().split('\n').length, catalogue.length);
    });

    // Each refusal comes before anything is applied or written (no environment is running here).
    const refused: [string, string[], RegExp][] = [
      [
        'a vendor not in the catalogue',
        ['source', 'add', 'strype'],
        /no source "strype" in the catalogue: calendly, /,
      ],
      [
        'a signing source without its secret',
        ['source', 'add', 'stripe'],
        /Stripe signs its requests: pass its signing secret with --secret/,
      ],
      [
        'a secret for a source that signs nothing',
        ['source', 'add', 'mailchimp', '--secret', 'x'],
        /Mailchimp does not sign its requests/,
      ],
      [
        'a consent purpose misspelt',
        ['source', 'add', 'stripe', '--secret', 'x', '--consent', 'adds'],
        /unknown consent purpose "adds"/,
      ],
    ];
    for (const [name, argv, message] of refused)
      it(`refuses ${name}, saying why`, async () => {
        const { code, err } = await runCli(...argv);
        assert.notEqual(code, 0);
        assert.match(err, message);
      });
  });
});
