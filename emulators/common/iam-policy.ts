/**
 * Whether a principal may do one thing to one resource under IAM policies, as Google evaluates
 * them: a binding on the resource or any of its ancestors (project → dataset → table; project →
 * bucket; project → topic or subscription) grants the permissions of its role to its members,
 * when its condition (if any) holds for the request. Conditions are the subset of CEL that
 * resource-scoped grants use: `resource.name` / `resource.type` compared with `==` or
 * `.startsWith(...)`, Cloud Storage's list-prefix attribute
 * (`api.getAttribute("storage.googleapis.com/objectListPrefix", "")`), `&&`, `||` and
 * parentheses. An expression outside that subset is refused rather than guessed (it denies).
 * Cloud Storage checks a list on the bucket (`resource.name` is the bucket's, the prefix asked
 * for is the attribute), which is why a grant conditioned on object names does not list.
 */
import { permissionsOf } from './iam-roles.ts';

export interface IamBinding {
  readonly role: string;
  readonly members: readonly string[];
  readonly condition?: { readonly expression: string; readonly title?: string };
}

/** The policy set on one resource (its full name, e.g. `projects/p/topics/events`). */
export interface IamPolicy {
  readonly resource: string;
  readonly bindings: readonly IamBinding[];
}

export interface IamRequest {
  /** `serviceAccount:<email>`, `user:<email>`, … */
  readonly principal: string;
  readonly permission: string;
  /** The full name of the resource checked (for a Cloud Storage list: the bucket's). */
  readonly resource: string;
  /** `resource.type` as conditions see it, e.g. `storage.googleapis.com/Object`. */
  readonly resourceType?: string;
  /** Cloud Storage list requests: the prefix asked for. */
  readonly listPrefix?: string;
  /**
   * `resource.name` as the service shows it to conditions, when that differs from `resource`
   * (Secret Manager names a secret by its project's number there: `projects/<number>/secrets/…`).
   */
  readonly conditionName?: string;
}

/** Members that match every principal (`allUsers`) or every signed-in one (`allAuthenticatedUsers`). */
const matches = (member: string, principal: string): boolean =>
  member === principal ||
  member === 'allUsers' ||
  (member === 'allAuthenticatedUsers' && principal !== 'allUsers');

/** The bindings (of `policies`: the resource's and its ancestors') that allow the request. */
export function grantingBindings(policies: readonly IamPolicy[], request: IamRequest): IamBinding[] {
  const out: IamBinding[] = [];
  for (const policy of policies) {
    if (!isSelfOrAncestor(policy.resource, request.resource)) continue;
    for (const b of policy.bindings) {
      if (!b.members.some((m) => matches(m, request.principal))) continue;
      if (!permissionsOf(b.role)?.includes(request.permission)) continue;
      if (b.condition && !conditionHolds(b.condition.expression, request)) continue;
      out.push(b);
    }
  }
  return out;
}

export const allowed = (policies: readonly IamPolicy[], request: IamRequest): boolean =>
  grantingBindings(policies, request).length > 0;

/**
 * `ancestor` is the resource itself or one that contains it. Buckets and topics are named
 * without their project (`projects/_/buckets/b`): a project's policy covers them when it is the
 * project the caller says owns them, so callers pass only the policies of that chain.
 */
function isSelfOrAncestor(ancestor: string, resource: string): boolean {
  if (ancestor === resource || resource.startsWith(`${ancestor}/`)) return true;
  return /^projects\/[^/]+$/.test(ancestor) && resource.startsWith('projects/_/');
}

// ---- conditions --------------------------------------------------------------------------------

type Token = { kind: 'str'; value: string } | { kind: 'op'; value: string } | { kind: 'id'; value: string };

function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\') j++;
        value += text[j] ?? '';
        j++;
      }
      if (j >= text.length) return undefined;
      tokens.push({ kind: 'str', value });
      i = j + 1;
    } else if (text.startsWith('&&', i) || text.startsWith('||', i) || text.startsWith('==', i)) {
      tokens.push({ kind: 'op', value: text.slice(i, i + 2) });
      i += 2;
    } else if ('(),'.includes(c)) {
      tokens.push({ kind: 'op', value: c });
      i++;
    } else {
      const m = /^\.?[A-Za-z_][A-Za-z0-9_.]*/.exec(text.slice(i));
      if (!m) return undefined;
      // `resource.name.startsWith` is an operand and a method: two tokens.
      const method = /^(.*)(\.startsWith)$/.exec(m[0]);
      if (method?.[1]) tokens.push({ kind: 'id', value: method[1] }, { kind: 'id', value: '.startsWith' });
      else tokens.push({ kind: 'id', value: m[0] });
      i += m[0].length;
    }
  }
  return tokens;
}

/** Thrown inside the evaluator for anything outside the subset: the condition then denies. */
class Unsupported extends Error {}

/** Evaluates a condition for a request; false for anything outside the subset this reads. */
export function conditionHolds(expression: string, request: IamRequest): boolean {
  const tokens = tokenize(expression);
  if (!tokens) return false;
  let at = 0;
  const take = (kind: Token['kind'], value?: string): Token | undefined => {
    const t = tokens[at];
    if (!t || t.kind !== kind || (value !== undefined && t.value !== value)) return undefined;
    at++;
    return t;
  };
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Unsupported();
    return v;
  };
  /** An operand, as text: resource.name, resource.type or the list-prefix attribute. */
  const operand = (): string => {
    const id = need(take('id')).value;
    if (id === 'resource.name') return request.conditionName ?? request.resource;
    if (id === 'resource.type') return request.resourceType ?? '';
    if (id !== 'api.getAttribute') throw new Unsupported();
    need(take('op', '('));
    const name = need(take('str')).value;
    need(take('op', ','));
    const fallback = need(take('str')).value;
    need(take('op', ')'));
    if (name !== 'storage.googleapis.com/objectListPrefix') throw new Unsupported();
    return request.listPrefix ?? fallback;
  };
  const comparison = (): boolean => {
    if (take('op', '(')) {
      const inner = disjunction();
      need(take('op', ')'));
      return inner;
    }
    const left = operand();
    if (take('id', '.startsWith')) {
      need(take('op', '('));
      const prefix = need(take('str')).value;
      need(take('op', ')'));
      return left.startsWith(prefix);
    }
    need(take('op', '=='));
    return left === need(take('str')).value;
  };
  const conjunction = (): boolean => {
    let v = comparison();
    while (take('op', '&&')) v = comparison() && v;
    return v;
  };
  const disjunction = (): boolean => {
    let v = conjunction();
    while (take('op', '||')) v = conjunction() || v;
    return v;
  };
  try {
    const result = disjunction();
    return at === tokens.length && result;
  } catch (e) {
    if (e instanceof Unsupported) return false;
    throw e;
  }
}
