/**
 * IAM in the Firestore emulator (`--iam <file>`): who calls (emulators/common/iam-enforce.ts) and
 * the permission each method needs. Firestore checks every data permission on the database,
 * `projects/{p}/databases/{d}`, and grants come from the project's policy, so a grant is scoped
 * to one database by an IAM condition on `resource.name` (README, "Access control"). A refusal is
 * Firestore's 403 PERMISSION_DENIED "Missing or insufficient permissions.", with the ErrorInfo.
 *
 * Google's Firestore client sends `Authorization: Bearer owner` to an emulator it finds through
 * FIRESTORE_EMULATOR_HOST; that is no credential, so the caller is decided by the port.
 */
import type http from 'node:http';
import {
  type Caller,
  denialInfo,
  denialSuffix,
  type Enforcement,
  type IdentityListeners,
  requestAccess,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import { FirestoreError } from './errors.ts';

const DATABASE_TYPE = 'firestore.googleapis.com/Database';

export interface Access {
  readonly enforcement: Enforcement;
  readonly caller: Caller;
}

export const accessOf = (
  enforcement: Enforcement,
  req: http.IncomingMessage,
  identities: IdentityListeners | undefined,
): Access =>
  requestAccess(
    enforcement,
    req,
    identities,
    () => new FirestoreError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE),
    /^Bearer\s+owner\s*$/i,
  );

/** Refused unless the caller holds `permission` on `database` (`projects/{p}/databases/{d}`). */
export function mayDatabase(access: Access | undefined, permission: string, database: string): void {
  if (!access) return;
  const d = access.enforcement.check(access.caller, {
    permission,
    resource: database,
    resourceType: DATABASE_TYPE,
  });
  if (d)
    throw new FirestoreError('PERMISSION_DENIED', `Missing or insufficient permissions. ${denialSuffix(d)}`, [
      denialInfo('firestore.googleapis.com', d),
    ]);
}
