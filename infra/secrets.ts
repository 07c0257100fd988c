/**
 * A Secret Manager secret per name plan() lists (destination credentials and the token store),
 * with no value: values are added out of band (docs/deploy.md), and the functions read them at
 * run time, so a missing value is a clear delivery error rather than a failed deploy. The
 * gateway's edge secret and session salt are the exception (core/access/gateway-secrets.ts): Cloud
 * Run reads them into its environment as a revision starts, so their versions come from the
 * stack's config secrets (docs/browser.md#secrets-on-google-cloud).
 */
import * as gcp from '@pulumi/gcp';
import * as pulumi from '@pulumi/pulumi';
import type { GatewaySecret } from '../core/access/gateway-secrets.ts';
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

/** A secret a Cloud Run service reads as an environment variable (`valueSource.secretKeyRef`). */
export interface SecretEnv {
  readonly secret: pulumi.Input<string>;
  readonly version: pulumi.Input<string>;
}

/** The gateway's own secrets (core/access/gateway-secrets.ts): declared, valued, readable by it alone. */
export interface GatewaySecretsArgs {
  readonly secrets: readonly GatewaySecret[];
  /** By stack config key (infra/config.ts); absent offline, where no version is declared. */
  readonly values?: Readonly<Record<string, pulumi.Input<string>>> | undefined;
  readonly member: pulumi.Input<string>;
}

export class Secrets extends pulumi.ComponentResource {
  readonly secrets: Readonly<Record<string, gcp.secretmanager.Secret>>;
  /** The gateway's environment variables from its secrets, by variable name. */
  readonly gatewayEnv: Readonly<Record<string, SecretEnv>>;
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
      /** The edge secret and session salt the settings need (none: nothing declared). */
      readonly gateway?: GatewaySecretsArgs;
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
    const gatewayEnv: Record<string, SecretEnv> = {};
    const gw = args.gateway;
    for (const g of gw?.secrets ?? []) {
      if (!gw) break;
      const made = secret(`gateway-${g.configKey}`, g.secretId);
      const value = gw.values?.[g.configKey];
      // The value is the stack's config secret: the same on every `pulumi up` until the engineer
      // sets another, which makes a new version and so a new gateway revision.
      const version =
        value === undefined
          ? undefined
          : new gcp.secretmanager.SecretVersion(
              `${name}-gateway-${g.configKey}-version`,
              { secret: made.id, secretData: pulumi.secret(value) },
              { parent: this },
            );
      // The gateway's account alone (the gateway depends on this component, so on the grant).
      new gcp.secretmanager.SecretIamMember(
        `${name}-accessor-gateway-${g.secretId}`,
        { project: args.plan.project, secretId: made.secretId, role: ACCESSOR, member: gw.member },
        { parent: this },
      );
      gatewayEnv[g.env] = { secret: made.secretId, version: version ? version.version : 'latest' };
    }
    this.gatewayEnv = gatewayEnv;
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
