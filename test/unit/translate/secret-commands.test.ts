/**
 * core/translate/translator-secrets.ts: the command that creates a translator's secret keeps its
 * replicas where the settings keep data (issue #100): user-managed in the region under
 * `data_residency`, automatic otherwise, and a warning comment where the settings are not known.
 */
import assert from 'node:assert/strict';
import { createCommand } from '../../../core/translate/translator-secrets.ts';

describe('translate: the gcloud command that creates a translator secret', () => {
  it('keeps the replicas in the region under data_residency', () => {
    assert.equal(
      createCommand('acme', 'eventbus-translator-stripe', { region: 'europe-west1', dataResidency: true }),
      'gcloud secrets create eventbus-translator-stripe --project=acme --replication-policy=user-managed --locations=europe-west1 --data-file=-',
    );
  });

  it('replicates automatically otherwise', () => {
    assert.equal(
      createCommand('acme', 'eventbus-translator-stripe', { region: 'europe-west1', dataResidency: false }),
      'gcloud secrets create eventbus-translator-stripe --project=acme --replication-policy=automatic --data-file=-',
    );
  });

  it('says what data_residency needs when the settings are not at hand', () => {
    const command = createCommand('acme', 'eventbus-translator-stripe');
    assert.match(command, / --replication-policy=automatic --data-file=- {3}# with data_residency: /);
    assert.match(command, /--replication-policy=user-managed --locations=<region>$/);
  });
});
