/**
 * The IAM bindings a declared environment (infra/offline.ts) creates, as the policies IAM
 * evaluates: each `*IAMMember` resource becomes one binding on the full name of its resource.
 * The access tests check them against what the code calls (test/infra/access-needs.test.ts) and
 * the local emulators enforce them (local/access-file.ts).
 */

import type { IamPolicy, PolicyTagEntry } from '@eventbus/emulator-common/types';
import { PII_RESOURCES } from '../core/access/needs.ts';
import { type Declared, mockPolicyTagOf } from './offline.ts';

const last = (name: unknown) => String(name).slice(String(name).lastIndexOf('/') + 1);

/** The full resource name a binding resource grants on; undefined for kinds no need names. */
export function bindingResource(d: Declared, project: string): string | undefined {
  const i = d.inputs;
  const p = `projects/${project}`;
  switch (d.type) {
    case 'gcp:pubsub/topicIAMMember:TopicIAMMember':
      return `${p}/topics/${last(i['topic'])}`;
    case 'gcp:pubsub/subscriptionIAMMember:SubscriptionIAMMember':
      return `${p}/subscriptions/${last(i['subscription'])}`;
    case 'gcp:bigquery/datasetIamMember:DatasetIamMember':
      return `${p}/datasets/${i['datasetId']}`;
    case 'gcp:bigquery/iamMember:IamMember':
      return `${p}/datasets/${i['datasetId']}/tables/${i['tableId']}`;
    case 'gcp:projects/iAMMember:IAMMember':
      return p;
    case 'gcp:bigtable/tableIamMember:TableIamMember':
      return `${p}/instances/${last(i['instanceName'])}/tables/${last(i['table'])}`;
    case 'gcp:storage/bucketIAMMember:BucketIAMMember':
      return `projects/_/buckets/${i['bucket']}`;
    case 'gcp:secretmanager/secretIamMember:SecretIamMember':
      return `${p}/secrets/${last(i['secretId'])}`;
    case 'gcp:datacatalog/policyTagIamMember:PolicyTagIamMember':
      return PII_RESOURCES.tag;
    case 'gcp:datacatalog/taxonomyIamMember:TaxonomyIamMember':
      return PII_RESOURCES.taxonomy;
    case 'gcp:bigquerydatapolicy/dataPolicyIamMember:DataPolicyIamMember':
      return PII_RESOURCES.maskingRule;
    default:
      return undefined;
  }
}

/** One policy per declared binding (a binding per resource is how IAMMember resources add up). */
export function policiesOf(bindings: readonly Declared[], project: string): IamPolicy[] {
  return bindings.flatMap((d) => {
    const resource = bindingResource(d, project);
    if (resource === undefined) return [];
    const condition = d.inputs['condition'] as { expression: string } | undefined;
    return [
      {
        resource,
        bindings: [
          {
            role: String(d.inputs['role']),
            members: [String(d.inputs['member'])],
            ...(condition ? { condition } : {}),
          },
        ],
      },
    ];
  });
}

export const isBinding = (d: Declared) => /IamMember|IAMMember/i.test(d.type);

/**
 * The policy tags a declared environment puts on columns, each with its data policies (masking
 * rules), as the access file's `policyTags` (the BigQuery emulator enforces them): their grants
 * are bound on PII_RESOURCES' names, as `bindingResource` binds them.
 */
export function policyTagsOf(resources: readonly Declared[]): PolicyTagEntry[] {
  const rules = resources.filter((d) => d.type === 'gcp:bigquerydatapolicy/dataPolicy:DataPolicy');
  return resources
    .filter((d) => d.type === 'gcp:datacatalog/policyTag:PolicyTag')
    .map((tag) => {
      const name = mockPolicyTagOf(String(tag.inputs['taxonomy']));
      return {
        name,
        resource: PII_RESOURCES.tag,
        dataPolicies: rules
          .filter((r) => r.inputs['policyTag'] === name)
          .map((r) => ({
            name: `projects/${r.inputs['project']}/locations/${r.inputs['location']}/dataPolicies/${r.inputs['dataPolicyId']}`,
            resource: PII_RESOURCES.maskingRule,
            predefinedExpression: String(r.inputs['dataMaskingPolicy']?.['predefinedExpression']),
          })),
      };
    });
}
