/**
 * docs/deploy.md's "Who may do what" table against the program: every IAM binding the
 * environment declares (under mocks, environments/example.yaml) is summarised as who / role /
 * on what, and the two sets must be equal, so neither the docs nor the program can drift.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { EDGE_SECRET, SESSION_SALT } from '../../core/access/gateway-secrets.ts';
import { TRANSLATOR_SECRET_PREFIX } from '../../core/translate/translator-secrets.ts';
import { loadStackConfig, REPO_ROOT } from '../../infra/config.ts';
import { declareEnvironment } from '../../infra/environment.ts';
import { SETTINGS_SECRET } from '../../infra/runtime-env.ts';
import { BUNDLES, type Declared, declare, PROJECT_NUMBER, type Recorded } from './support.ts';

const PROJECT = 'acme-outdoor-prod';

/** The table's rows as `who | role | on`, backticks removed. */
function documentedRows(): string[] {
  const text = readFileSync(resolve(REPO_ROOT, 'docs/deploy.md'), 'utf8');
  const at = text.indexOf('### Who may do what');
  assert.ok(at >= 0, 'docs/deploy.md has a "Who may do what" section');
  const lines = text.slice(at).split('\n');
  const first = lines.findIndex((l) => l.startsWith('| Who |'));
  const rows: string[] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replaceAll('`', ''));
    rows.push(cells.join(' | '));
  }
  return rows;
}

const last = (name: unknown) => String(name).slice(String(name).lastIndexOf('/') + 1);

describe('infra: who may do what (docs/deploy.md) equals the declared IAM bindings', () => {
  let recorded: Recorded;
  let config: ReturnType<typeof loadStackConfig>;

  before(async () => {
    config = loadStackConfig({
      project: PROJECT,
      region: 'europe-west1',
      settingsFile: 'environments/example.yaml',
    });
    recorded = await declare(() => declareEnvironment(config, BUNDLES));
  });

  function who(member: string): string {
    const own = /^serviceAccount:(eventbus-[a-z]+)@/.exec(member);
    if (own) return own[1] as string;
    if (member === `serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-pubsub.iam.gserviceaccount.com`)
      return 'Pub/Sub service agent';
    if (member === `serviceAccount:service-${PROJECT_NUMBER}@serverless-robot-prod.iam.gserviceaccount.com`)
      return 'Cloud Run service agent';
    if (member === `serviceAccount:service-${PROJECT_NUMBER}@gcp-sa-iap.iam.gserviceaccount.com`)
      return 'IAP service agent';
    for (const list of ['viewers', 'editors', 'admins'] as const)
      if ((config.settings.studio?.[list] ?? []).includes(member)) return `studio.${list}`;
    if ((config.settings.analysts ?? []).includes(member)) return 'analysts';
    if ((config.settings.pii_readers ?? []).includes(member)) return 'pii_readers';
    if ((config.settings.producers?.principals ?? []).includes(member)) return 'producers';
    return `unknown member ${member}`;
  }

  /** Custom roles by their name in the table: `projects/<p>/roles/eventbus.<env>.X` → `custom X`. */
  function role(name: string): string {
    const custom = /^projects\/[^/]+\/roles\/eventbus\.[^.]+\.([A-Za-z0-9_]+)$/.exec(name)?.[1];
    return custom ? `custom ${custom}` : name;
  }

  function on(d: Declared): string {
    const plan = config.plan;
    const i = d.inputs;
    switch (d.type) {
      case 'gcp:pubsub/topicIAMMember:TopicIAMMember': {
        const topic = plan.topics.find((t) => t.name === last(i['topic']));
        if (topic?.kind === 'events') return 'events topics';
        if (topic?.kind === 'dead_letter' || topic?.kind === 'poison') return 'each dead-letter topic';
        if (topic?.kind === 'deliveries' && topic.destination) return "each destination's deliveries topic";
        return `topic ${last(i['topic'])}`;
      }
      case 'gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember': {
        const sub = plan.subscriptions.find((s) => s.name === last(i['subscription']));
        if (sub?.deadLetterPolicy) return 'each subscription with a dead-letter policy';
        return sub?.kind === 'backlog'
          ? 'each dead-letter backlog'
          : `subscription ${last(i['subscription'])}`;
      }
      case 'gcp:secretmanager/secretIamMember:SecretIamMember':
        if (i['secretId'] === SETTINGS_SECRET) return 'settings secret';
        if (i['secretId'] === SESSION_SALT.secretId) return 'session salt secret';
        if (i['secretId'] === EDGE_SECRET.secretId) return 'edge secret';
        return i['secretId'] === plan.gateway.tokenSecret ? 'token store secret' : 'each destination secret';
      case 'gcp:bigquery/iamMember:IamMember':
        return `table ${i['tableId']}`;
      case 'gcp:bigquery/datasetIamMember:DatasetIamMember':
        return i['datasetId'] === plan.ops.dataset ? 'ops dataset' : 'dataset';
      case 'gcp:projects/iAMMember:IAMMember':
        // Translators' secrets are made after deploy: a project grant conditioned on their prefix.
        if (String(i['condition']?.expression ?? '').includes(`/secrets/${TRANSLATOR_SECRET_PREFIX}"`))
          return `secrets named ${TRANSLATOR_SECRET_PREFIX}* (project, conditioned)`;
        // Firestore has no policy of its own: a grant on one database is the project's, conditioned.
        return String(i['condition']?.expression ?? '').includes(`/databases/${plan.claims.database}"`)
          ? 'claims database'
          : 'project';
      case 'gcp:cloudrunv2/serviceIamMember:ServiceIamMember':
        return `service ${last(i['name'])}`;
      case 'gcp:storage/bucketIAMMember:BucketIAMMember':
        if (i['condition']) {
          const expression = String(i['condition'].expression);
          const prefix = /objects\/([^"]+)"/.exec(expression)?.[1];
          return `registry bucket, ${prefix} only${expression.includes('objectListPrefix') ? ', and listing it' : ''}`;
        }
        return plan.buckets.some((b) => b.name === i['bucket']) ? 'registry bucket' : 'sources bucket';
      case 'gcp:iap/webCloudRunServiceIamMember:WebCloudRunServiceIamMember':
        return `service ${i['cloudRunServiceName']} (IAP)`;
      case 'gcp:datacatalog/taxonomyIamMember:TaxonomyIamMember':
        return 'personal-data taxonomy';
      case 'gcp:datacatalog/policyTagIamMember:PolicyTagIamMember':
        return 'policy tag pii';
      case 'gcp:bigquerydatapolicy/dataPolicyIamMember:DataPolicyIamMember':
        return 'PII masking rule';
      case 'gcp:serviceaccount/iAMMember:IAMMember':
        return `account ${last(i['serviceAccountId']).split('@')[0]}`;
      default:
        return `unknown binding type ${d.type}`;
    }
  }

  it('documents every declared binding, and declares every documented one', () => {
    const bindings = recorded.resources.filter((r) => /IamMember|IAMMember/i.test(r.type));
    assert.ok(bindings.length > 20, `${bindings.length} bindings`);
    const declared = [
      ...new Set(bindings.map((b) => `${who(b.inputs['member'])} | ${role(b.inputs['role'])} | ${on(b)}`)),
    ];
    const documented = documentedRows();
    const missing = declared.filter((r) => !documented.includes(r));
    const extra = documented.filter((r) => !declared.includes(r));
    assert.deepEqual({ undocumented: missing, notDeclared: extra }, { undocumented: [], notDeclared: [] });
  });
});
