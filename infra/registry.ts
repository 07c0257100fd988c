/**
 * The environment's Cloud Storage buckets from plan().buckets: today the registry of runtime
 * resources (event definitions, translators, syncs, rules, saved queries). Locally `npm start`
 * creates the same buckets in the project's Cloud Storage emulator.
 *
 * Users' resources live here, so unlike the sources bucket it is never force-destroyed, and
 * nobody outside the project reads it (uniform access, public access prevention). No account
 * is granted access to the resources yet: the studio service that writes it, and the gateway's
 * read of the EventDefinition and Translator prefixes, come with them (docs/deploy.md). The
 * scheduler's account may write the `locks/` prefix only.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';

export interface BucketsArgs {
  readonly plan: Plan;
  /** Grants on one prefix of the registry bucket only (an IAM condition on the object name). */
  readonly prefixGrants?: readonly PrefixGrant[];
}

export interface PrefixGrant {
  readonly who: string;
  readonly member: pulumi.Input<string>;
  readonly role: 'roles/storage.objectViewer' | 'roles/storage.objectUser' | 'roles/storage.objectCreator';
  /** e.g. `locks/`, `once/`, `Rule/`. */
  readonly prefix: string;
  /**
   * Also list the prefix. Cloud Storage checks a list on the bucket (the condition sees the
   * bucket's name, and the prefix asked for as `storage.googleapis.com/objectListPrefix`), so a
   * condition on object names alone never lists.
   */
  readonly list?: boolean;
}

export class Buckets extends pulumi.ComponentResource {
  readonly buckets: Readonly<Record<string, gcp.storage.Bucket>>;

  constructor(name: string, args: BucketsArgs, opts?: pulumi.ComponentResourceOptions) {
    super('eventbus:infra:Buckets', name, {}, opts);
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const buckets: Record<string, gcp.storage.Bucket> = {};
    for (const b of args.plan.buckets) {
      buckets[b.purpose] = new gcp.storage.Bucket(
        `${name}-${b.purpose}`,
        {
          project: args.plan.project,
          name: b.name,
          location: b.location,
          uniformBucketLevelAccess: true,
          publicAccessPrevention: 'enforced',
          versioning: { enabled: b.versioning },
          forceDestroy: false,
          lifecycleRules: (b.expire ?? []).map((e) => ({
            action: { type: 'Delete' },
            condition: { age: e.ageDays, matchesPrefixes: [e.prefix] },
          })),
        },
        child,
      );
    }
    const registry = buckets['registry'];
    const registryName = args.plan.buckets.find((b) => b.purpose === 'registry')?.name;
    for (const g of args.prefixGrants ?? []) {
      if (!registry) break;
      const label = g.prefix.replace(/\/$/, '').toLowerCase();
      // A create-only grant beside a viewer grant on the same prefix needs a name of its own
      // (the older grants keep theirs, so an upgrade replaces none of them).
      const role = g.role === 'roles/storage.objectCreator' ? '-creator' : '';
      new gcp.storage.BucketIAMMember(
        `${name}-registry-${label}-${g.who}${role}`,
        {
          bucket: registry.name,
          role: g.role,
          member: g.member,
          condition: {
            title: `${g.prefix} only`,
            description: `Objects under ${g.prefix} of the registry bucket${g.list ? ', and listing them' : ''}`,
            expression: prefixCondition(`projects/_/buckets/${registryName}`, g.prefix, g.list === true),
          },
        },
        child,
      );
    }
    this.buckets = buckets;
    this.registerOutputs({ buckets: Object.values(buckets).map((b) => b.name) });
  }
}

/** The IAM condition of a prefix grant: objects under `prefix`, and (with `list`) listing them. */
export function prefixCondition(bucket: string, prefix: string, list: boolean): string {
  const objects = `resource.name.startsWith("${bucket}/objects/${prefix}")`;
  if (!list) return objects;
  return `${objects} || (resource.name == "${bucket}" && api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("${prefix}"))`;
}
