/**
 * A Secret Manager secret per name plan() lists (destination credentials and the token store),
 * with no value: values are added out of band (docs/deploy.md), and the functions read them at
 * run time, so a missing value is a clear delivery error rather than a failed deploy.
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { Plan } from '../core/plan.ts';
import { translatorSecretsCondition } from '../core/translate/translator-secrets.ts';
import { SETTINGS_MAX_BYTES, SETTINGS_SECRET, type SettingsDelivery } from './runtime-env.ts';

const ACCESSOR = 'roles/secretmanager.secretAccessor';

export interface SecretAccess {
  /** Short label used in resource names, e.g. `forward`. */
  readonly who: string;
  readonly member: pulumi.Input<string>;
  readonly secrets: readonly string[];
  /** Default: read (`secretAccessor`). The studio also adds versions (it issues tokens). */
  readonly roles?: readonly string[];
}

/** The settings every workload reads (no secret values: delivered as a mounted file). */
export interface SettingsSecretArgs {
  /** The validated settings as JSON. */
  readonly json: string;
  /** The workloads that read them. */
  readonly readers: readonly Omit<SecretAccess, 'secrets' | 'roles'>[];
}

export class Secrets extends pulumi.ComponentResource {
  readonly secrets: Readonly<Record<string, gcp.secretmanager.Secret>>;
  /** The settings secret's version the workloads mount. */
  readonly settingsFile: SettingsDelivery;

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
      readonly settings: SettingsSecretArgs;
      /**
       * Who reads translators' signing secrets (the gateway): an accessor grant on the project,
       * conditioned on the secrets' name prefix (core/translate/translator-secrets.ts), since
       * translators and their secrets are made after `pulumi up`.
       */
      readonly translatorReader?: { readonly who: string; readonly member: pulumi.Input<string> };
    },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super('eventbus:infra:Secrets', name, {}, opts);
    const child = { parent: this, dependsOn: opts?.dependsOn ?? [] };
    const secrets: Record<string, gcp.secretmanager.Secret> = {};
    const secret = (label: string, secretId: string) =>
      new gcp.secretmanager.Secret(
        `${name}-${label}`,
        {
          project: args.plan.project,
          secretId,
          replication: args.replicaLocation
            ? { userManaged: { replicas: [{ location: args.replicaLocation }] } }
            : { auto: {} },
          labels: { environment: args.plan.environment },
        },
        child,
      );
    for (const secretName of args.plan.secrets)
      secrets[secretName] = secret(`secret-${secretName}`, secretName);
    this.settingsFile = this.settingsSecret(
      name,
      args.plan.project,
      args.settings,
      secret('settings', SETTINGS_SECRET),
    );
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
    if (args.translatorReader) this.translatorGrant(name, args.plan.project, args.translatorReader, child);
    this.secrets = secrets;
    this.registerOutputs({});
  }

  /**
   * The project-level grant on every secret under the translator prefix. The condition names the
   * project by NUMBER, as Secret Manager shows secrets to IAM conditions; the number is looked up
   * after the APIs are enabled (a new project refuses the lookup before).
   */
  private translatorGrant(
    name: string,
    project: string,
    reader: { readonly who: string; readonly member: pulumi.Input<string> },
    child: pulumi.CustomResourceOptions,
  ): void {
    const number = gcp.organizations.getProjectOutput({ projectId: project }, child).number;
    const condition = number.apply((n) => translatorSecretsCondition(n));
    new gcp.projects.IAMMember(
      `${name}-translator-secrets-${reader.who}`,
      { project, role: ACCESSOR, member: reader.member, condition },
      child,
    );
  }

  /** The settings' one version, readable by every workload; each change is a new version. */
  private settingsSecret(
    name: string,
    project: string,
    settings: SettingsSecretArgs,
    secret: gcp.secretmanager.Secret,
  ): SettingsDelivery {
    const bytes = Buffer.byteLength(settings.json);
    if (bytes > SETTINGS_MAX_BYTES)
      throw new Error(
        `the settings are ${bytes} bytes as JSON, more than Secret Manager's ${SETTINGS_MAX_BYTES} per version: move destinations or connections into fewer, shorter entries`,
      );
    const version = new gcp.secretmanager.SecretVersion(
      `${name}-settings-version`,
      { secret: secret.id, secretData: settings.json },
      { parent: this },
    );
    for (const reader of settings.readers) {
      new gcp.secretmanager.SecretIamMember(
        `${name}-settings-accessor-${reader.who}`,
        { project, secretId: secret.secretId, role: ACCESSOR, member: reader.member },
        { parent: this },
      );
    }
    return { secretId: secret.secretId, version: version.version };
  }
}
