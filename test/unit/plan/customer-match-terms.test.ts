/** The Customer Match terms warning of `settings check` (core/plan-warnings/customer-match-terms.ts). */
import assert from 'node:assert/strict';
import { customerMatchTermsWarnings } from '../../../core/plan-warnings/customer-match-terms.ts';
import type { Settings } from '../../../schemas/settings.ts';

const base: Settings = { name: 'w', project: 'w-project', region: 'europe-west1' };

describe('plan: Customer Match terms warning', () => {
  it('flags a google_ads_audience connection that does not say the terms were accepted, naming terms_of_service', () => {
    const [warning, ...rest] = customerMatchTermsWarnings({
      ...base,
      connections: [
        { id: 'ads', type: 'google_ads_audience' },
        { id: 'crm', type: 'webhook', url: 'https://crm.example/sync' },
      ],
    });
    assert.deepEqual(rest, []);
    assert.match(warning ?? '', /^connection ads: google_ads_audience without terms_of_service: accepted/);
    assert.match(warning ?? '', /eventbus apply refuses a sync where neither says so/);
  });

  it('says nothing once the connection says the terms were accepted, nor for other connections', () => {
    assert.deepEqual(
      customerMatchTermsWarnings({
        ...base,
        connections: [{ id: 'ads', type: 'google_ads_audience', terms_of_service: 'accepted' }],
      }),
      [],
    );
    assert.deepEqual(customerMatchTermsWarnings(base), []);
  });
});
