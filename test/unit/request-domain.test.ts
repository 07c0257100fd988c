import assert from 'node:assert/strict';
import { create } from 'node:domain';
import { leaveRequestDomain } from '../../adapters/request-domain.ts';
import { activeDomain } from '../support/framework-server.ts';

describe('leaveRequestDomain', () => {
  it('steps out of the active domain: callbacks queued after it run without one', async () => {
    const d = create();
    const seen = await new Promise<{ before: unknown; after: unknown }>((resolve) =>
      d.run(() => {
        const before = activeDomain();
        leaveRequestDomain();
        Promise.resolve().then(() => resolve({ before, after: activeDomain() }));
      }),
    );
    assert.equal(seen.before, d);
    assert.equal(seen.after, undefined);
  });

  it('does nothing outside a domain', () => {
    assert.equal(activeDomain(), undefined);
    leaveRequestDomain();
    assert.equal(activeDomain(), undefined);
  });
});
