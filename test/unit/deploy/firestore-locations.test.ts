/**
 * core/deploy/firestore-locations.ts: the claims database lives in the settings' region, so a
 * region Firestore does not offer is refused by the settings check, not half-way through the
 * first `pulumi up` (issue #100).
 */
import assert from 'node:assert/strict';
import { claimsLocationErrors } from '../../../core/deploy/firestore-locations.ts';
import { checkSettings } from '../../../core/settings.ts';

const settings = (region: string) => ({ name: 'dev', project: 'acme-dev-project', region });

describe('deploy: the claims database’s location', () => {
  it('accepts the regions Firestore offers', () => {
    for (const region of ['europe-west1', 'us-central1', 'asia-northeast1', 'me-central2'])
      assert.deepEqual(claimsLocationErrors(settings(region)), [], region);
  });

  it('refuses a region Firestore does not offer, naming the field and the reason', () => {
    const checked = checkSettings(settings('europe-west7'));
    assert.equal(checked.ok, false);
    if (checked.ok) return;
    assert.deepEqual(
      checked.errors.map((e) => e.field),
      ['region'],
    );
    assert.match(checked.errors[0]?.description ?? '', /europe-west7 is not a Firestore location/);
  });
});
