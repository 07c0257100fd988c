/**
 * Where translators' signing secrets live, and who may read them (docs/translators.md,
 * "Signing secrets"): a translator is a runtime resource, so `pulumi up` cannot grant the gateway
 * each secret one by one. Instead every translator secret is named under one fixed prefix, and the
 * program grants the gateway `roles/secretmanager.secretAccessor` on the project with an IAM
 * condition on that prefix. Secret Manager shows IAM conditions the secret's name with the
 * project's NUMBER (`projects/123456789012/secrets/…`), never its id, so the condition is written
 * with the number. A secret named otherwise needs its own grant: `grantCommand` says which.
 */

/** The prefix of every translator signing secret's name (one environment per project). */
export const TRANSLATOR_SECRET_PREFIX = 'eventbus-translator-';

/** The permission the gateway needs on a translator's secret (reading its latest version). */
export const SECRET_ACCESS = 'secretmanager.versions.access';

export const isTranslatorSecret = (name: string): boolean =>
  name.startsWith(TRANSLATOR_SECRET_PREFIX) && name.length > TRANSLATOR_SECRET_PREFIX.length;

/** The condition the program binds the gateway's project-level accessor grant with. */
export function translatorSecretsCondition(projectNumber: string): {
  readonly title: string;
  readonly description: string;
  readonly expression: string;
} {
  return {
    title: 'translator signing secrets',
    description: `Secrets named ${TRANSLATOR_SECRET_PREFIX}* (translators' signing secrets)`,
    expression: `resource.name.startsWith("projects/${projectNumber}/secrets/${TRANSLATOR_SECRET_PREFIX}")`,
  };
}

/**
 * `resource.name` as Secret Manager shows it to IAM conditions for a secret (or version) named
 * with the project id: the same name with the project's number; other names are unchanged.
 */
export function secretConditionName(resource: string, project: string, projectNumber: string): string {
  const byId = `projects/${project}/secrets/`;
  return resource.startsWith(byId)
    ? `projects/${projectNumber}/secrets/${resource.slice(byId.length)}`
    : resource;
}

/** The gcloud command that lets `member` read `secret` (for a secret outside the prefix). */
export const grantCommand = (project: string, secret: string, member: string): string =>
  `gcloud secrets add-iam-policy-binding ${secret} --project=${project} --member=${member} --role=roles/secretmanager.secretAccessor`;

/** Where a secret's replicas may be: the settings' region and whether `data_residency` holds. */
export interface SecretPlacement {
  readonly region: string;
  readonly dataResidency: boolean;
}

/**
 * The replication a secret is created with, as infra/secrets.ts declares the program's own:
 * replicas in the settings' region only under `data_residency` (user-managed), else automatic.
 */
export const replicationFlags = (placement: SecretPlacement): string =>
  placement.dataResidency
    ? `--replication-policy=user-managed --locations=${placement.region}`
    : '--replication-policy=automatic';

/** What a command printed without the settings at hand says of `data_residency`, as a shell comment. */
export const RESIDENCY_NOTE = '# with data_residency: --replication-policy=user-managed --locations=<region>';

/**
 * The gcloud command that stores a secret's first value, read from standard input. Without the
 * settings at hand (a command printed for a remote studio, the browser), automatic replication
 * followed by RESIDENCY_NOTE, so nobody under `data_residency` copies it unwarned.
 */
export const createCommand = (project: string, secret: string, placement?: SecretPlacement): string =>
  placement
    ? `gcloud secrets create ${secret} --project=${project} ${replicationFlags(placement)} --data-file=-`
    : `gcloud secrets create ${secret} --project=${project} --replication-policy=automatic --data-file=-   ${RESIDENCY_NOTE}`;

/**
 * The signing secret's name for a translator: the prefix and the translator's name in lowercase,
 * anything but letters, digits and hyphens as a hyphen (the source catalogue and the creator
 * both name secrets so).
 */
export const translatorSecretName = (translator: string): string =>
  `${TRANSLATOR_SECRET_PREFIX}${translator.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 255);
