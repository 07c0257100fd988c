/**
 * IAM in the Secret Manager emulator (`--iam <file>`): who calls (emulators/common/iam-enforce.ts)
 * and whether the access file's policies, with the secret's own policy (setIamPolicy), grant the
 * permission. Policies attach to `projects/<id>` and `projects/<id>/secrets/<secret>` (a version
 * has no policy of its own: its secret's applies); conditions see `resource.name` with the
 * project's NUMBER, `projects/<number>/secrets/<secret>[/versions/<n>]`, as Secret Manager shows
 * it to IAM (who calls is decided in server.ts, emulators/common/iam-enforce.ts). A refusal is 403 PERMISSION_DENIED in Secret Manager's words, with the ErrorInfo.
 */
import { denialInfo, type RequestAccess } from '@eventbus/emulator-common/iam-enforce.ts';
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import { SecretManagerError } from './errors.ts';

export const SECRET_TYPE = 'secretmanager.googleapis.com/Secret';
export const VERSION_TYPE = 'secretmanager.googleapis.com/SecretVersion';

export type Access = RequestAccess;

/** What one check is about: the permission, the names, and the secret's own policy. */
export interface Check {
  readonly permission: string;
  /** The name as the caller wrote it (Secret Manager's message quotes it). */
  readonly asked: string;
  /** The name policies attach to (project id form): `projects/<id>/secrets/<s>[/versions/<v>]`. */
  readonly resource: string;
  /** The name conditions see (project number form). */
  readonly conditionName: string;
  readonly resourceType: string;
  readonly own?: IamPolicy | undefined;
}

/** Whether the caller holds the permission (always, without `--iam`). */
export function holds(access: Access | undefined, c: Check): boolean {
  if (!access) return true;
  return denial(access, c) === undefined;
}

function denial(access: Access, c: Check) {
  return access.enforcement.check(
    access.caller,
    {
      permission: c.permission,
      resource: c.resource,
      resourceType: c.resourceType,
      conditionName: c.conditionName,
    },
    c.own ? [c.own] : [],
  );
}

/** Refused unless the caller holds the permission: Secret Manager's 403, naming it. */
export function must(access: Access | undefined, c: Check): void {
  if (!access) return;
  const d = denial(access, c);
  if (!d) return;
  throw new SecretManagerError(
    'PERMISSION_DENIED',
    `Permission '${c.permission}' denied for resource '${c.asked}' (or it may not exist).`,
    [denialInfo('secretmanager.googleapis.com', { ...d, resource: c.conditionName })],
  );
}
