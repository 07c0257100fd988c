/**
 * What a first `pulumi up` into a brand-new project needs that mocks cannot prove by running it
 * (docs/deploy.md, "First deploy into a new project"): the graph is tested instead. Every
 * resource waits for the APIs to be enabled and to have settled, as the engine would be told
 * (explicit `dependsOn` and every input's resources).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { API_SETTLE } from '../../infra/apis.ts';
import { loadStackConfig, REPO_ROOT } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { BUNDLES, type Declared, declare, dependenciesOf, type Recorded, SETTINGS_FILES } from './support.ts';

const SLEEP = 'time:index/sleep:Sleep';
const SERVICE_ACCOUNT_USER = 'roles/iam.serviceAccountUser';

interface DeployerRow {
  readonly roles: readonly string[];
  /** Accounts the row's Service Account User is needed on (`eventbus-push`, …). */
  readonly actAs: readonly string[];
}

/** docs/deploy.md's "Deployer roles" table: resource type → the roles that create it. */
function deployerRoles(): Map<string, DeployerRow> {
  const text = readFileSync(resolve(REPO_ROOT, 'docs/deploy.md'), 'utf8');
  const at = text.indexOf('### Deployer roles');
  assert.ok(at >= 0, 'docs/deploy.md has a "Deployer roles" section');
  const lines = text.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('| Declares |'));
  const rows = new Map<string, DeployerRow>();
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const [type = '', needs = ''] = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const roles = [...needs.matchAll(/`(roles\/[a-zA-Z.]+)`/g)].map((m) => m[1] as string);
    const on = needs.split(`\`${SERVICE_ACCOUNT_USER}\` on`)[1] ?? '';
    rows.set(type.replaceAll('`', ''), {
      roles,
      actAs: [...on.matchAll(/`(eventbus-[a-z-]+)`/g)].map((m) => m[1] as string),
    });
  }
  return rows;
}

/** The service accounts a resource makes Google act as, by their account id. */
function actsAs(r: Declared): string[] {
  const emails: unknown[] = [
    r.inputs['pushConfig']?.oidcToken?.serviceAccountEmail,
    r.inputs['serviceConfig']?.serviceAccountEmail,
    r.inputs['buildConfig']?.serviceAccount,
    r.inputs['template']?.serviceAccount,
  ];
  return emails
    .filter((e): e is string => typeof e === 'string')
    .map((e) => /(eventbus-[a-z-]+)@/.exec(e)?.[1] ?? e);
}
const API = 'gcp:projects/service:Service';

for (const stack of SETTINGS_FILES) {
  describe(`infra: a first deploy into a new project (${stack.settingsFile})`, () => {
    let recorded: Recorded;

    before(async () => {
      const config = loadStackConfig(stack);
      recorded = await declare(() => declareEnvironment(config, BUNDLES));
    });

    it('waits after enabling the APIs, and every other resource waits for that', () => {
      const entries = [...recorded.graph.entries()];
      const sleeps = entries.filter(([, r]) => r.type === SLEEP);
      assert.equal(sleeps.length, 1, 'one wait');
      const [sleepUrn] = sleeps[0] as [string, unknown];
      const apis = entries.filter(([, r]) => r.type === API).map(([urn]) => urn);
      assert.ok(apis.length > 10);
      // The wait follows every enablement.
      const before = dependenciesOf(recorded, sleepUrn);
      for (const api of apis) assert.ok(before.has(api), `the wait follows ${api}`);
      const sleep = recorded.resources.find((r) => r.type === SLEEP);
      assert.equal(sleep?.inputs['createDuration'], API_SETTLE);
      // Every custom resource that is not an API (or the wait) comes after it.
      const late = entries
        .filter(([, r]) => r.custom && r.type !== API && r.type !== SLEEP)
        .filter(([urn]) => !dependenciesOf(recorded, urn).has(sleepUrn))
        .map(([, r]) => `${r.type} ${r.name}`);
      assert.deepEqual(late, []);
    });

    it('grants the source archives’ reader (Cloud Run’s service agent) only once the Run API is enabled and settled', () => {
      // The agent is made by enabling the Run API; its e-mail is computed, not a resource, so
      // the grant must come after the enablement and the wait (unverified: docs/deploy.md).
      const entries = [...recorded.graph.entries()];
      const runApi = entries.find(([, r]) => r.type === API && r.name.endsWith('-api-run'))?.[0];
      const sleep = entries.find(([, r]) => r.type === SLEEP)?.[0];
      const reader = recorded.resources.find(
        (r) =>
          r.type === 'gcp:storage/bucketIAMMember:BucketIAMMember' &&
          String(r.inputs['member']).includes('@serverless-robot-prod.iam.gserviceaccount.com'),
      );
      assert.ok(runApi && sleep && reader, 'the Run API, the wait and the agent’s grant are declared');
      const urn = entries.find(([, r]) => r.name === reader.name)?.[0] as string;
      const before = dependenciesOf(recorded, urn);
      assert.ok(before.has(sleep) && before.has(runApi));
    });

    it('documents, for each declared resource type, the deployer role that creates it (docs/deploy.md)', () => {
      const table = deployerRoles();
      const declared = [...new Set(recorded.resources.map((r) => r.type))].filter(
        (t) => !t.startsWith('eventbus:') && t !== 'pulumi:pulumi:Stack',
      );
      const missing = declared.filter((t) => !table.has(t));
      assert.deepEqual(missing, [], 'declared types without a row');
      for (const t of declared) {
        if (t === SLEEP) continue;
        assert.ok((table.get(t)?.roles.length ?? 0) > 0, `${t} names a role`);
      }
    });

    it('documents Service Account User on every account a declared resource acts as', () => {
      const table = deployerRoles();
      const gaps: string[] = [];
      for (const r of recorded.resources) {
        const row = table.get(r.type);
        for (const account of actsAs(r)) {
          if (!row?.roles.includes(SERVICE_ACCOUNT_USER) || !row.actAs.includes(account))
            gaps.push(`${r.type} ${r.name} acts as ${account}`);
        }
      }
      assert.deepEqual(gaps, []);
    });
  });
}

describe('infra: the deployer role table names only what the program declares', () => {
  it('has no row for a type neither the example nor the minimal settings declare', async () => {
    const declared = new Set<string>();
    for (const stack of SETTINGS_FILES) {
      const recorded = await declare(() => declareEnvironment(loadStackConfig(stack), BUNDLES));
      for (const r of recorded.resources) declared.add(r.type);
    }
    assert.deepEqual(
      [...deployerRoles().keys()].filter((t) => !declared.has(t)),
      [],
    );
  });
});
