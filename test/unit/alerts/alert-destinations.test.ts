/**
 * An Alert's `failure_rate` names a destination of the settings (issue #61, a Low): one that does
 * not exist is refused at apply, naming the field and listing the destinations there are, instead
 * of an alert that would count no attempts and never fire. Pure (the studio's apply is
 * test/studio/alert-destinations.test.ts).
 */
import assert from 'node:assert/strict';
import { alertViolations } from '../../../core/alerts/alerts.ts';
import { resourceViolations } from '../../../core/registry/resources.ts';
import type { Connection } from '../../../schemas/settings.ts';

const CONNECTIONS: Connection[] = [{ id: 'ops-chat', type: 'chat', url: 'https://chat.example/hook' }];

const failing = (destination: string) => ({
  condition: { failure_rate: { destination, above: 0.2, window: '15m' } },
  schedule: { every: '5m' },
  notify: { connection: 'ops-chat' },
});

describe('alerts: the destination a failure rate names', () => {
  it('refuses a destination the settings do not have, listing those they have', () => {
    assert.deepEqual(alertViolations(failing('metaa'), 'spec', CONNECTIONS, ['meta', 'ga4']), [
      {
        field: 'spec.condition.failure_rate.destination',
        description: 'unknown destination "metaa" (settings: meta, ga4)',
      },
    ]);
    assert.deepEqual(alertViolations(failing('meta'), 'spec', CONNECTIONS, []), [
      {
        field: 'spec.condition.failure_rate.destination',
        description: 'unknown destination "meta" (settings: none)',
      },
    ]);
  });

  it('accepts a destination of the settings, and other conditions whatever the destinations', () => {
    assert.deepEqual(alertViolations(failing('ga4'), 'spec', CONNECTIONS, ['meta', 'ga4']), []);
    const quiet = { ...failing('x'), condition: { source_quiet: { for: '30m' } } };
    assert.deepEqual(alertViolations(quiet, 'spec', CONNECTIONS, []), []);
  });

  it('is checked by resourceViolations when the apply knows the settings’ destinations', () => {
    const doc = { kind: 'Alert', name: 'meta-failing', spec: failing('metaa') };
    const bad = resourceViolations(doc, 'documents[0]', { connections: CONNECTIONS, destinations: ['meta'] });
    assert.deepEqual(
      bad.map((v) => [v.field, v.description]),
      [
        [
          'documents[0].spec.condition.failure_rate.destination',
          'unknown destination "metaa" (settings: meta)',
        ],
      ],
    );
    const good = { ...doc, spec: failing('meta') };
    assert.deepEqual(
      resourceViolations(good, 'documents[0]', { connections: CONNECTIONS, destinations: ['meta'] }),
      [],
    );
  });
});
