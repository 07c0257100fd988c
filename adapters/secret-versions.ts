/**
 * The versions of one refresh-token secret over Secret Manager's REST API, for the claim of
 * core/platforms/segment-action/refresh-rotation.ts: the newest version's state and etag
 * (`versions.get` of `latest`), a version's value (`versions.access`), disable and enable with
 * the etag (ABORTED, 409, when it no longer matches), and `secrets.addVersion`. The workload needs
 * `roles/secretmanager.secretVersionManager` and `roles/secretmanager.secretAccessor` on that
 * secret alone (core/access/needs.ts); a refusal names the permission (SecretAccessDenied).
 */
import {
  RETRYABLE_CODE,
  type RefreshTokenVersions,
  type SecretVersionState,
} from '../core/platforms/segment-action/refresh-rotation.ts';
import { accessDenied, type SecretManagerCall, secretManagerCall } from './secrets.ts';
import type { RefreshTokenStore } from './segment-actions/run.ts';

interface VersionJson {
  readonly name?: string;
  readonly state?: string;
  readonly etag?: string;
}

const stateOf = (json: unknown): SecretVersionState => {
  const v = (json ?? {}) as VersionJson;
  const version = v.name?.split('/').at(-1);
  if (!version || (v.state !== 'ENABLED' && v.state !== 'DISABLED' && v.state !== 'DESTROYED'))
    throw new Error(`Secret Manager answered a version without a name or state: ${JSON.stringify(json)}`);
  return { version, state: v.state, etag: v.etag ?? '' };
};

/** The `error.status` of a Google API error body (`FAILED_PRECONDITION`, …), if it has one. */
const errorStatus = (body: unknown): string | undefined =>
  (body as { error?: { status?: unknown } } | undefined)?.error?.status as string | undefined;

/** The versions of `secret` in `project`, through one Secret Manager REST caller. */
export function secretVersions(
  project: string,
  secret: string,
  manager: { readonly base: string; readonly call: SecretManagerCall },
): RefreshTokenVersions {
  // Secret Manager unreachable: retried later, as a 5xx.
  const sm = {
    base: manager.base,
    call: ((method, url, body) =>
      manager.call(method, url, body).catch((err: unknown) => {
        throw Object.assign(new Error(`Secret Manager unreachable for secret ${secret}: ${String(err)}`), {
          code: RETRYABLE_CODE,
        });
      })) as SecretManagerCall,
  };
  const at = `${sm.base}/v1/projects/${encodeURIComponent(project)}/secrets/${encodeURIComponent(secret)}`;
  // A refusal is the grant's to fix (its permission named); anything else comes back later.
  const failed = (status: number, body: unknown, permission: string): Error =>
    status === 403
      ? accessDenied(secret, body, permission)
      : Object.assign(new Error(`Secret Manager answered HTTP ${status} for secret ${secret}`), {
          code: RETRYABLE_CODE,
        });
  const transition = async (v: SecretVersionState, verb: 'disable' | 'enable') => {
    const { status, body } = await sm.call('POST', `${at}/versions/${v.version}:${verb}`, { etag: v.etag });
    if (status === 200) return stateOf(body);
    if (status === 409) return undefined; // ABORTED: the etag moved, another instance was first
    throw failed(status, body, `secretmanager.versions.${verb}`);
  };
  return {
    async latest() {
      const { status, body } = await sm.call('GET', `${at}/versions/latest`);
      if (status === 200) return stateOf(body);
      if (status === 404) return undefined;
      throw failed(status, body, 'secretmanager.versions.get');
    },
    async access(version) {
      const { status, body } = await sm.call('GET', `${at}/versions/${version}:access`);
      const data = (body as { payload?: { data?: string } } | undefined)?.payload?.data;
      if (status === 200 && data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
      // Disabled since we read it (another instance's claim): the caller looks again.
      if (status === 400 && errorStatus(body) === 'FAILED_PRECONDITION') return undefined;
      throw failed(status, body, 'secretmanager.versions.access');
    },
    disable: (v) => transition(v, 'disable'),
    enable: (v) => transition(v, 'enable'),
    async add(value) {
      const data = Buffer.from(value, 'utf8').toString('base64');
      const { status, body } = await sm.call('POST', `${at}:addVersion`, { payload: { data } });
      if (status === 200) return stateOf(body).version;
      throw failed(status, body, 'secretmanager.versions.add');
    },
  };
}

/**
 * forward-catalog's refresh-token store where its secrets are Secret Manager's (no secrets
 * folder): each secret's versions at `endpoint` (the emulator locally) or Google's API, and the
 * real clock. Undefined with a secrets folder: a rotated token then lives in memory only.
 */
export function refreshTokenStore(config: {
  readonly project: string;
  readonly secretsDir?: string | undefined;
  readonly secretManager?: string | undefined;
}): RefreshTokenStore | undefined {
  if (config.secretsDir !== undefined) return undefined;
  const sm = secretManagerCall(undefined, config.secretManager);
  return {
    versions: (secret) => secretVersions(config.project, secret, sm),
    clock: { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
  };
}
