/**
 * docs/deploy.md's "Deployer roles" table (`<!-- generated:deployer-roles -->`), made from what
 * the program declares for every settings variant (infra/variants.ts): a row per resource type,
 * the roles that create it (DEPLOYER_ROLES, the one hand-kept part), the service accounts a
 * resource of the type makes Google act as (Service Account User on each, read from the declared
 * inputs), and the variants that declare it. A declared type with no entry here, or an entry no
 * variant declares, stops the generation: test/infra/variants.test.ts fails on either, and
 * when the committed table differs from what this writes.
 */
import type { Declared } from '../infra/offline.ts';
import type { DeclaredVariant } from '../infra/variants.ts';

export const SERVICE_ACCOUNT_USER = 'roles/iam.serviceAccountUser';

/**
 * The roles that create each resource type, in the table's order (roughly the deploy order), as
 * Google's role reference lists their permissions (from the pages, not re-checked offline:
 * docs/deploy.md says so). Service Account User is added by the generation where it is needed.
 */
export const DEPLOYER_ROLES: Readonly<Record<string, string>> = {
  'gcp:projects/service:Service': '`roles/serviceusage.serviceUsageAdmin`',
  'gcp:projects/serviceIdentity:ServiceIdentity': '`roles/serviceusage.serviceUsageAdmin`',
  'time:index/sleep:Sleep': 'nothing (the wait after enabling the APIs runs in the engine)',
  'gcp:serviceaccount/account:Account': '`roles/iam.serviceAccountAdmin`',
  'gcp:serviceaccount/iAMMember:IAMMember': '`roles/iam.serviceAccountAdmin`',
  'gcp:projects/iAMMember:IAMMember': '`roles/resourcemanager.projectIamAdmin`',
  'gcp:pubsub/topic:Topic': '`roles/pubsub.admin`',
  'gcp:pubsub/topicIAMMember:TopicIAMMember': '`roles/pubsub.admin`',
  'gcp:pubsub/subscription:Subscription': '`roles/pubsub.admin`',
  'gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember': '`roles/pubsub.admin`',
  'gcp:bigquery/dataset:Dataset': '`roles/bigquery.admin`',
  'gcp:bigquery/datasetIamMember:DatasetIamMember': '`roles/bigquery.admin`',
  'gcp:bigquery/table:Table':
    '`roles/bigquery.admin`, `roles/datacatalog.categoryAdmin` (policy tags on columns)',
  'gcp:bigquery/iamMember:IamMember': '`roles/bigquery.admin`',
  'gcp:datacatalog/taxonomy:Taxonomy': '`roles/datacatalog.categoryAdmin`',
  'gcp:datacatalog/policyTag:PolicyTag': '`roles/datacatalog.categoryAdmin`',
  'gcp:datacatalog/policyTagIamMember:PolicyTagIamMember': '`roles/datacatalog.categoryAdmin`',
  'gcp:datacatalog/taxonomyIamMember:TaxonomyIamMember': '`roles/datacatalog.categoryAdmin`',
  'gcp:projects/iAMCustomRole:IAMCustomRole': '`roles/iam.roleAdmin`',
  'gcp:bigquerydatapolicy/dataPolicy:DataPolicy':
    '`roles/bigquerydatapolicy.admin`, `roles/datacatalog.categoryAdmin`',
  'gcp:bigquerydatapolicy/dataPolicyIamMember:DataPolicyIamMember': '`roles/bigquerydatapolicy.admin`',
  'gcp:storage/bucket:Bucket': '`roles/storage.admin`',
  'gcp:firestore/database:Database': '`roles/datastore.owner`',
  'gcp:firestore/field:Field': '`roles/datastore.indexAdmin`',
  // claims.store: bigtable (infra/claims-bigtable.ts): instances, tables, GC rules and table IAM.
  'gcp:bigtable/instance:Instance': '`roles/bigtable.admin`',
  'gcp:bigtable/table:Table': '`roles/bigtable.admin`',
  'gcp:bigtable/gCPolicy:GCPolicy': '`roles/bigtable.admin`',
  'gcp:bigtable/tableIamMember:TableIamMember': '`roles/bigtable.admin`',
  'gcp:storage/bucketIAMMember:BucketIAMMember': '`roles/storage.admin`',
  'gcp:storage/bucketObject:BucketObject': '`roles/storage.admin`',
  'gcp:secretmanager/secret:Secret': '`roles/secretmanager.admin`',
  'gcp:secretmanager/secretVersion:SecretVersion': '`roles/secretmanager.admin`',
  'gcp:secretmanager/secretIamMember:SecretIamMember': '`roles/secretmanager.admin`',
  'gcp:cloudfunctionsv2/function:Function': '`roles/cloudfunctions.admin`',
  'gcp:cloudrunv2/service:Service': '`roles/run.admin`',
  'gcp:cloudrunv2/serviceIamMember:ServiceIamMember': '`roles/run.admin`',
  'gcp:iap/webCloudRunServiceIamMember:WebCloudRunServiceIamMember': '`roles/iap.admin`',
  'gcp:cloudscheduler/job:Job': '`roles/cloudscheduler.admin`',
  'gcp:logging/metric:Metric': '`roles/logging.configWriter`',
  'gcp:logging/projectExclusion:ProjectExclusion': '`roles/logging.configWriter`',
  'gcp:monitoring/alertPolicy:AlertPolicy': '`roles/monitoring.alertPolicyEditor`',
  // gateway.domain through the load balancer: Compute Load Balancer Admin holds the create, get,
  // use and delete permissions of each of these (and the serverless NEG's).
  'gcp:compute/globalAddress:GlobalAddress': '`roles/compute.loadBalancerAdmin`',
  'gcp:compute/regionNetworkEndpointGroup:RegionNetworkEndpointGroup': '`roles/compute.loadBalancerAdmin`',
  'gcp:compute/backendService:BackendService': '`roles/compute.loadBalancerAdmin`',
  'gcp:compute/uRLMap:URLMap': '`roles/compute.loadBalancerAdmin`',
  'gcp:compute/managedSslCertificate:ManagedSslCertificate': '`roles/compute.loadBalancerAdmin`',
  'gcp:compute/targetHttpsProxy:TargetHttpsProxy': '`roles/compute.loadBalancerAdmin`',
  'gcp:compute/globalForwardingRule:GlobalForwardingRule': '`roles/compute.loadBalancerAdmin`',
  // gateway.domain through a Cloud Run domain mapping.
  'gcp:cloudrun/domainMapping:DomainMapping':
    '`roles/run.admin`, and the deployer a verified owner of the domain (Search Console; no IAM role gives it)',
};

/** Types that are not Google resources: the stack and the program's own components. */
const notAResource = (type: string) => type === 'pulumi:pulumi:Stack' || type.startsWith('eventbus:');

/** The service accounts a resource makes Google act as, by their account id (`eventbus-push`, …). */
export function actsAs(r: Declared): string[] {
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

/** A variant's short name: its file without folder and `.yaml`. */
const short = (file: string) => file.replace(/^.*\//, '').replace(/\.yaml$/, '');
const variantNames = (files: readonly string[]) => files.map((f) => `\`${short(f)}\``).join(', ');

/**
 * The accounts, each once, those acted as only with some of the variants declaring the type
 * grouped and qualified: `(with …)`, or `(not with …)` when that is the shorter list.
 */
function accountList(accounts: readonly [string, Set<string>][], by: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const [account, files] of accounts) {
    const key = by.filter((f) => files.has(f)).join(' ');
    groups.set(key, [...(groups.get(key) ?? []), `\`${account}\``]);
  }
  return [...groups]
    .map(([key, names]) => {
      const present = key.split(' ');
      const missing = by.filter((f) => !present.includes(f));
      const list = names.join(', ');
      if (missing.length === 0) return list;
      return missing.length < present.length
        ? `${list} (not with ${variantNames(missing)})`
        : `${list} (with ${variantNames(present)})`;
    })
    .join('; ');
}

/** The generated table, or an error naming each type without an entry and each entry never declared. */
export function deployerTable(variants: readonly DeclaredVariant[]): string {
  /** type → the variants that declare it; type → account → the variants where it acts as it. */
  const declaredBy = new Map<string, string[]>();
  const actAs = new Map<string, Map<string, Set<string>>>();
  for (const v of variants)
    for (const r of v.recorded.resources) {
      if (notAResource(r.type)) continue;
      const by = declaredBy.get(r.type) ?? [];
      if (!by.includes(v.file)) declaredBy.set(r.type, [...by, v.file]);
      for (const account of actsAs(r)) {
        const accounts = actAs.get(r.type) ?? new Map<string, Set<string>>();
        accounts.set(account, (accounts.get(account) ?? new Set()).add(v.file));
        actAs.set(r.type, accounts);
      }
    }
  const unknown = [...declaredBy.keys()].filter((t) => !(t in DEPLOYER_ROLES));
  const never = Object.keys(DEPLOYER_ROLES).filter((t) => !declaredBy.has(t));
  if (unknown.length > 0 || never.length > 0)
    throw new Error(
      [
        ...unknown.map(
          (t) => `${t} is declared but has no entry in DEPLOYER_ROLES (scripts/docs-deployer.ts)`,
        ),
        ...never.map((t) => `${t} has an entry in DEPLOYER_ROLES but no settings variant declares it`),
      ].join('\n'),
    );
  const all = variants.map((v) => v.file);
  const rows = Object.entries(DEPLOYER_ROLES).map(([type, roles]) => {
    const by = declaredBy.get(type) ?? [];
    const accounts = [...(actAs.get(type) ?? new Map<string, Set<string>>())];
    const user = accounts.length === 0 ? '' : `, \`${SERVICE_ACCOUNT_USER}\` on ${accountList(accounts, by)}`;
    const where = by.length === all.length ? 'every variant' : variantNames(by);
    return `| \`${type}\` | ${roles}${user} | ${where} |`;
  });
  return ['| Declares | Needs | Declared with |', '|---|---|---|', ...rows].join('\n');
}
