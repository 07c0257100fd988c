/**
 * Who the studio's IAP can admit at all, checked before `pulumi up` grants anyone. The studio is
 * a Cloud Run service with IAP turned on directly (`iapEnabled`, infra/studio.ts), and that uses
 * Google's managed OAuth client, which lets in only users of the organisation the project
 * belongs to: a project with no organisation cannot use it, and a member of another
 * organisation or a consumer account (gmail.com) is never let in, whatever IAM grants it. Going
 * beyond that takes an OAuth client of one's own for IAP, made by hand, or
 * `gcloud run services proxy` (docs/studio.md#on-google-cloud, docs/deploy.md).
 *
 * So: a consumer account in the studio lists is an error; with `studio.organization` set, so is
 * any person, group or domain outside it; without it, one warning says what is not checked.
 */
import type { Settings } from '../../schemas/settings.ts';
import type { FieldViolation } from '../validation.ts';

/** Google's consumer domains: their accounts belong to no organisation. */
export const CONSUMER_DOMAINS: readonly string[] = Object.freeze(['gmail.com', 'googlemail.com']);

const LISTS = ['viewers', 'editors', 'admins'] as const;

const WHERE = 'docs/studio.md#on-google-cloud';

/** One listed member with its settings path (`studio.editors[1]`). */
interface Listed {
  readonly field: string;
  readonly member: string;
}

function listed(settings: Readonly<Settings>): Listed[] {
  return LISTS.flatMap((list) =>
    (settings.studio?.[list] ?? []).map((member, i) => ({ field: `studio.${list}[${i}]`, member })),
  );
}

/**
 * The domain a `user:`, `group:` or `domain:` member stands for, in lower case; undefined for a
 * service account (and for anything else the schema lets through).
 */
export function memberDomain(member: string): string | undefined {
  const colon = member.indexOf(':');
  const kind = member.slice(0, colon);
  const rest = member.slice(colon + 1).toLowerCase();
  if (kind === 'domain') return rest;
  if (kind === 'user' || kind === 'group') return rest.slice(rest.lastIndexOf('@') + 1);
  return undefined;
}

/** Whether `domain` is `organization` or one of its subdomains (`eu.acme.com` under `acme.com`). */
export function withinOrganization(domain: string, organization: string): boolean {
  return domain === organization || domain.endsWith(`.${organization}`);
}

/**
 * The studio lists' members IAP's managed OAuth client can never admit: consumer accounts, and
 * with `studio.organization` set, members outside that domain; an organisation that is a consumer
 * domain is refused too. Settings validation reports these as errors.
 */
export function checkStudioIap(settings: Readonly<Settings>): FieldViolation[] {
  const organization = settings.studio?.organization;
  const errors: FieldViolation[] = [];
  if (organization !== undefined && CONSUMER_DOMAINS.includes(organization))
    errors.push({
      field: 'studio.organization',
      description: `${organization} is Google's consumer domain, which belongs to no organisation: name the Workspace or Cloud Identity domain of the project's organisation`,
    });
  for (const { field, member } of listed(settings)) {
    const domain = memberDomain(member);
    // Service accounts are not people of a domain: they are how the CLI reaches the studio, by
    // impersonation with an ID token (docs/deploy.md, "The CLI against the studio (IAP)").
    if (domain === undefined) continue;
    if (CONSUMER_DOMAINS.includes(domain))
      errors.push({
        field,
        description:
          `${member} is a consumer Google account: the studio's IAP uses Google's managed OAuth client, ` +
          `which admits only users of the project's organisation, never ${domain} accounts, whatever IAM grants. ` +
          `List an account of the organisation instead, or an operator service account the person impersonates ` +
          `(docs/deploy.md, "The CLI against the studio (IAP)")`,
      });
    else if (organization !== undefined && !withinOrganization(domain, organization))
      errors.push({
        field,
        description:
          `${member} is outside studio.organization (${organization}): the studio's IAP uses Google's managed ` +
          `OAuth client, which admits only users of the project's organisation, whatever IAM grants. ` +
          `List a member at ${organization} or a subdomain of it; for outside people, an OAuth client of your own ` +
          `for IAP (made by hand) or gcloud run services proxy (${WHERE})`,
      });
  }
  return errors;
}

/**
 * One warning when the studio lists name anyone but `studio.organization` is unset: nothing
 * checks that the project has an organisation and that the members belong to it.
 */
export function studioIapWarnings(settings: Readonly<Settings>): string[] {
  if (settings.studio?.organization !== undefined || listed(settings).length === 0) return [];
  return [
    `studio: the studio's IAP uses Google's managed OAuth client, which admits only users of the ` +
      `organisation the project belongs to: a project outside an organisation cannot use it, and members ` +
      `of another organisation are never admitted, whatever IAM grants. Set studio.organization to the ` +
      `organisation's domain to have the lists checked against it, or reach the studio with ` +
      `gcloud run services proxy (${WHERE}).`,
  ];
}
