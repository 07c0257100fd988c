/**
 * A Secret Manager secret per name plan() lists (destination credentials and the token store),
 * with no value: values are added out of band (docs/deploy.md), and the functions read them at
 * run time, so a missing value is a clear delivery error rather than a failed deploy.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';

const ACCESSOR = 'roles/secretmanager.secretAccessor';

export interface SecretAccess {
  /** Short label used in resource names, e.g. `forward`. */
  readonly who: string;
  readonly member: pulumi.Input<string>;
  readonly secrets: readonly string[];
  /** Default: read (`secretAccessor`). The studio also adds versions (it issues tokens). */
  readonly roles?: readonly string[];
}

export class Secrets extends pulumi.ComponentResource {
  readonly secrets: Readonly<Record<string, gcp.secretmanager.Secret>>;

  constructor(
    name: string,
    args: {
      readonly plan: Plan;
      readonly access: readonly SecretAccess[];
      /**
       * Where to keep the secrets' payloads when the settings ask for data residency: replicated
       * by the user to this one location instead of automatically (anywhere Google chooses).
       */
      readonly replicaLocation?: string | undefined;
    },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super('eventbus:infra:Secrets', name, {}, opts);
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const secrets: Record<string, gcp.secretmanager.Secret> = {};
    for (const secretName of args.plan.secrets) {
      secrets[secretName] = new gcp.secretmanager.Secret(
        `${name}-secret-${secretName}`,
        {
          project: args.plan.project,
          secretId: secretName,
          replication: args.replicaLocation
            ? { userManaged: { replicas: [{ location: args.replicaLocation }] } }
            : { auto: {} },
          labels: { environment: args.plan.environment },
        },
        child,
      );
    }
    for (const grant of args.access) {
      for (const secretName of grant.secrets) {
        const secret = secrets[secretName];
        if (!secret) throw new Error(`${grant.who} needs secret "${secretName}" that the plan does not list`);
        for (const role of grant.roles ?? [ACCESSOR]) {
          // The reader's resource keeps its name (renaming would re-create it on `pulumi up`).
          const label = role === ACCESSOR ? 'accessor' : role.replace(/^roles\/secretmanager\./, '');
          new gcp.secretmanager.SecretIamMember(
            `${name}-${label}-${grant.who}-${secretName}`,
            { project: args.plan.project, secretId: secret.secretId, role, member: grant.member },
            { parent: this },
          );
        }
      }
    }
    this.secrets = secrets;
    this.registerOutputs({});
  }
}
