/**
 * The access tests' comparison: each need (core/access/needs.ts) against the policies the
 * declared program binds (infra/access-policies.ts), as IAM evaluates them.
 */
import type { AccessNeed } from '../../core/access/needs.ts';
import { workloadMember } from '../../core/access/needs.ts';
import { secretConditionName } from '../../core/translate/translator-secrets.ts';
import { grantingBindings, type IamPolicy } from '../../emulators/common/iam-policy.ts';
import { PROJECT_NUMBER } from '../../infra/offline.ts';

export { bindingResource, isBinding, policiesOf } from '../../infra/access-policies.ts';

/** The needs no policy allows (or, for `denied` rows, those some policy does allow). */
export function unmet(
  needs: readonly AccessNeed[],
  policies: readonly IamPolicy[],
  project: string,
): string[] {
  return needs.flatMap((n) => {
    const granted =
      grantingBindings(policies, {
        principal: workloadMember(n.who, project),
        permission: n.permission,
        resource: n.resource,
        // Secret Manager shows conditions the project's number (the mocks' getProject answers it).
        conditionName: secretConditionName(n.resource, project, PROJECT_NUMBER),
        ...(n.listPrefix !== undefined ? { listPrefix: n.listPrefix } : {}),
      }).length > 0;
    if (granted === !n.denied) return [];
    const what = `${n.who} ${n.permission} on ${n.resource}${n.listPrefix ? ` (list ${n.listPrefix})` : ''}`;
    return [
      n.denied ? `ALLOWED but must not be: ${what} — ${n.feature}` : `${what} — ${n.feature} (${n.code})`,
    ];
  });
}
