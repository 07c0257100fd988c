/**
 * The environment's Cloud Storage buckets from plan().buckets: today the registry of runtime
 * resources (event definitions, translators, syncs, rules, saved queries). Locally `npm start`
 * creates the same buckets in the project's Cloud Storage emulator.
 *
 * Users' resources live here, so unlike the sources bucket it is never force-destroyed, and
 * nobody outside the project reads it (uniform access, public access prevention). No account
 * is granted access yet: the studio service that writes it, and the gateway's read of the
 * EventDefinition and Translator prefixes, come with them (docs/deploy.md).
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';

export interface BucketsArgs {
  readonly plan: Plan;
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
        },
        child,
      );
    }
    this.buckets = buckets;
    this.registerOutputs({ buckets: Object.values(buckets).map((b) => b.name) });
  }
}
