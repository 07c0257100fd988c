/**
 * Rules on (experimental): what `pulumi up` adds for them — the actions topic with its retry and
 * dead letters, the action_runs table, and grants that reach only what rules touch.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadStackConfig } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, declare, ofType, type Recorded, settingsText } from './support.ts';

const PROJECT = 'acme-outdoor-prod';
const sa = (w: string) => `serviceAccount:eventbus-${w}@${PROJECT}.iam.gserviceaccount.com`;
const RULES = `experimental:
  rules: true
connections:
  - id: sales-chat
    type: chat
    url_secret: sales-chat-url
  - id: crm-hook
    type: webhook
    url: https://crm.acme.example/hooks/eventbus
    secrets: { signing_key: crm-hook-key }
`;

describe('infra: rules (experimental)', () => {
  let recorded: Recorded;
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'eventbus-rules-'));
    try {
      const file = join(dir, 'env.yaml');
      writeFileSync(file, `${settingsText('environments/example.yaml')}\n${RULES}`);
      const config = loadStackConfig({ project: PROJECT, region: 'europe-west1', settingsFile: file });
      recorded = await declare(() => declareEnvironment(config, BUNDLES));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  const bindings = (type: string) =>
    ofType(recorded, type).map((b) => [
      b.inputs['member'],
      b.inputs['role'],
      b.inputs['condition']?.expression ?? b.inputs['topic'] ?? b.inputs['tableId'] ?? b.inputs['secretId'],
    ]);

  it('declares the actions topic pushed to the schedule function, with a dead-letter topic, and action_runs', () => {
    const subs = ofType(recorded, 'gcp:pubsub/subscription:Subscription');
    const actions = subs.find((s) => s.inputs['name'] === 'actions-schedule');
    assert.ok(actions);
    assert.match(actions.inputs['deadLetterPolicy'].deadLetterTopic, /topics\/actions-schedule-dead-letter$/);
    assert.ok(subs.some((s) => s.inputs['name'] === 'actions-schedule-dead-letter-ledger'));
    assert.ok(
      ofType(recorded, 'gcp:bigquery/table:Table').some((t) => t.inputs['tableId'] === 'action_runs'),
    );
  });

  it('lets store read Rule/ only, and schedule read Rule/, claim once/ and write action_runs', () => {
    // (EventDefinition/ and Translator/ are read with or without rules: infra/environment.test.ts.)
    // (geo/ is enrichment's, identities/ store's, sends/ the delivering functions', erasures/ and
    // privacy/ the erasures', with or without rules:
    // test/infra/environment.test.ts.)
    const objects = bindings('gcp:storage/bucketIAMMember:BucketIAMMember').filter(
      (b) =>
        String(b[2]).includes('registry') &&
        !/EventDefinition\/|Translator\/|geo\/|identities\/|sends\/|erasures\/|privacy\//.test(String(b[2])),
    );
    const prefix = (b: unknown[]) => /objects\/([^"]+)"/.exec(String(b[2]))?.[1];
    assert.deepEqual(
      objects.map((b) => `${b[0]} ${b[1]} ${prefix(b)}`).sort(),
      [
        `${sa('schedule')} roles/storage.objectUser locks/`,
        `${sa('schedule')} roles/storage.objectUser once/`,
        `${sa('schedule')} roles/storage.objectUser replays/`,
        `${sa('schedule')} roles/storage.objectViewer Alert/`,
        `${sa('schedule')} roles/storage.objectViewer Rule/`,
        `${sa('schedule')} roles/storage.objectViewer Sync/`,
        `${sa('store')} roles/storage.objectViewer Rule/`,
      ].sort(),
    );
    const tables = bindings('gcp:bigquery/iamMember:IamMember').filter((b) => b[2] === 'action_runs');
    assert.deepEqual(tables, [[sa('schedule'), 'roles/bigquery.dataEditor', 'action_runs']]);
    const secrets = bindings('gcp:secretmanager/secretIamMember:SecretIamMember').filter(
      (b) => b[0] === sa('schedule') && b[2] !== 'eventbus-settings',
    );
    assert.deepEqual(secrets.map((b) => b[2]).sort(), ['crm-hook-key', 'sales-chat-url']);
  });
});
