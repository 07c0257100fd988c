/**
 * The Secret Manager methods over the state: secrets (create, get, list, patch, delete), versions
 * (add, get, list, access, enable, disable, destroy) and the secret's IAM policy (get, set, test),
 * each authorized first (access.ts) and answered in the REST API v1's JSON (README, "API surface").
 */
import type { IamBinding } from '@eventbus/emulator-common/iam-policy.ts';
import { type Access, type Check, holds, must, SECRET_TYPE, VERSION_TYPE } from './access.ts';
import { badRequest, notImplemented, SecretManagerError } from './errors.ts';
import { checkLabels, checkSecretId, crc32c, type Projects } from './names.ts';
import type { SecretState, StoredPolicy, StoredSecret, StoredVersion, VersionState } from './state.ts';

/** Secret Manager's limit on one version's payload. */
export const PAYLOAD_LIMIT = 65_536;

/** A secret named in a request path: `projects/{project}/secrets/{id}`, project by id or number. */
export interface SecretRef {
  /** As asked: `projects/<id or number>/secrets/<id>`. */
  readonly asked: string;
  /** `projects/<number>/secrets/<id>`: the state's key, every answer's name, conditions' view. */
  readonly name: string;
  /** `projects/<project id>/secrets/<id>`: where policies attach. */
  readonly policyName: string;
  readonly projectNumber: string;
  readonly projectId: string;
}

const timestamp = (): string => new Date().toISOString();

function secretJson(s: StoredSecret): Record<string, unknown> {
  return {
    name: s.name,
    replication: s.replication,
    createTime: s.createTime,
    ...(Object.keys(s.labels).length ? { labels: s.labels } : {}),
    ...(Object.keys(s.annotations).length ? { annotations: s.annotations } : {}),
    etag: s.etag,
  };
}

function replicationStatus(replication: unknown): unknown {
  const managed = (replication as { userManaged?: { replicas?: { location?: string }[] } }).userManaged;
  return managed
    ? { userManaged: { replicas: (managed.replicas ?? []).map((r) => ({ location: r.location })) } }
    : { automatic: {} };
}

function policyJson(p: StoredPolicy | undefined): Record<string, unknown> {
  if (!p || p.bindings.length === 0) return { etag: p ? p.etag : 'ACAB' };
  return { version: p.version, bindings: p.bindings, etag: p.etag };
}

const MEMBER =
  /^(user|serviceAccount|group|domain|deleted:[a-zA-Z]+):\S+$|^(allUsers|allAuthenticatedUsers)$|^principal(Set)?:\/\/\S+$/;

/** A policy's bindings as setIamPolicy takes them (conditions need policy version 3). */
function checkBindings(policy: Record<string, unknown>): IamBinding[] {
  const bindings = policy['bindings'] ?? [];
  if (!Array.isArray(bindings)) throw badRequest('policy.bindings must be a list.');
  const version = policy['version'] ?? 1;
  return bindings.map((b: unknown, i) => {
    const { role, members, condition } = (b ?? {}) as Record<string, unknown>;
    if (
      typeof role !== 'string' ||
      !/^(roles|projects\/[^/]+\/roles|organizations\/[^/]+\/roles)\/\S+$/.test(role)
    )
      throw badRequest(`policy.bindings[${i}].role is not a role name.`);
    if (
      !Array.isArray(members) ||
      members.length === 0 ||
      !members.every((m) => typeof m === 'string' && MEMBER.test(m))
    )
      throw badRequest(
        `policy.bindings[${i}].members must list principals (user:, serviceAccount:, group:, …).`,
      );
    if (condition === undefined) return { role, members };
    const c = condition as Record<string, unknown>;
    if (typeof c['expression'] !== 'string' || c['expression'] === '')
      throw badRequest(`policy.bindings[${i}].condition.expression is required.`);
    if (version !== 3)
      throw badRequest('A policy with conditional role bindings must be set with policy version 3.');
    return {
      role,
      members,
      condition: {
        expression: c['expression'],
        ...(typeof c['title'] === 'string' ? { title: c['title'] } : {}),
      },
    };
  });
}

function decodePayload(payload: unknown): { data: string; bytes: Buffer; crc?: number } {
  const p = (payload ?? {}) as { data?: unknown; dataCrc32c?: unknown };
  if (p.data !== undefined && typeof p.data !== 'string')
    throw badRequest('payload.data must be base64 text.');
  const text = p.data ?? '';
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) throw badRequest('payload.data is not valid base64.');
  const bytes = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  if (bytes.length > PAYLOAD_LIMIT) throw badRequest('Secret Payload cannot be larger than 64KiB.');
  if (p.dataCrc32c === undefined) return { data: bytes.toString('base64'), bytes };
  const crc = Number(p.dataCrc32c);
  if (!Number.isInteger(crc) || crc < 0 || crc > 0xffffffff)
    throw badRequest('payload.dataCrc32c is not a CRC32C.');
  return { data: bytes.toString('base64'), bytes, crc };
}

export class SecretMethods {
  private readonly state: SecretState;
  private readonly projects: Projects;

  constructor(state: SecretState, projects: Projects) {
    this.state = state;
    this.projects = projects;
  }

  ref(project: string, secret: string): SecretRef {
    checkSecretId(secret);
    const projectNumber = this.projects.numberOf(project);
    const projectId = this.projects.idOf(projectNumber);
    return {
      asked: `projects/${project}/secrets/${secret}`,
      name: `projects/${projectNumber}/secrets/${secret}`,
      policyName: `projects/${projectId}/secrets/${secret}`,
      projectNumber,
      projectId,
    };
  }

  private onSecret(r: SecretRef, permission: string): Check {
    return {
      permission,
      asked: r.asked,
      resource: r.policyName,
      conditionName: r.name,
      resourceType: SECRET_TYPE,
      own: this.ownPolicy(r),
    };
  }

  private ownPolicy(r: SecretRef) {
    const p = this.state.secrets.get(r.name)?.policy;
    return p ? { resource: r.policyName, bindings: p.bindings } : undefined;
  }

  private onProject(project: string, permission: string): Check {
    const n = this.projects.numberOf(project);
    return {
      permission,
      asked: `projects/${project}`,
      resource: `projects/${this.projects.idOf(n)}`,
      conditionName: `projects/${n}`,
      resourceType: 'cloudresourcemanager.googleapis.com/Project',
    };
  }

  private secretOf(r: SecretRef): StoredSecret {
    const s = this.state.secrets.get(r.name);
    if (!s) throw new SecretManagerError('NOT_FOUND', `Secret [${r.name}] not found.`);
    return s;
  }

  async create(
    a: Access | undefined,
    project: string,
    secretId: string | null,
    body: Record<string, unknown>,
  ) {
    if (!secretId) throw badRequest('secretId is required.');
    const r = this.ref(project, secretId);
    must(a, this.onProject(project, 'secretmanager.secrets.create'));
    const replication = body['replication'] as Record<string, unknown> | undefined;
    if (
      !replication ||
      typeof replication !== 'object' ||
      (!replication['automatic'] && !replication['userManaged'])
    )
      throw badRequest('Secret.replication is required: automatic, or userManaged with replicas.');
    const managed = replication['userManaged'] as { replicas?: unknown } | undefined;
    if (managed && (!Array.isArray(managed.replicas) || managed.replicas.length === 0))
      throw badRequest('Secret.replication.userManaged.replicas must name at least one location.');
    if (
      body['ttl'] !== undefined ||
      body['expireTime'] !== undefined ||
      body['rotation'] !== undefined ||
      body['topics'] !== undefined
    )
      throw notImplemented('Expiration, rotation and topics');
    const labels = checkLabels(body['labels']);
    const annotations = stringMap(body['annotations'], 'annotations');
    if (this.state.secrets.has(r.name))
      throw new SecretManagerError('ALREADY_EXISTS', `Secret [${r.name}] already exists.`);
    const secret: StoredSecret = {
      name: r.name,
      createTime: timestamp(),
      labels,
      annotations,
      replication,
      etag: this.state.etag(),
    };
    await this.state.putSecret(secret);
    return secretJson(secret);
  }

  get(a: Access | undefined, r: SecretRef) {
    must(a, this.onSecret(r, 'secretmanager.secrets.get'));
    return secretJson(this.secretOf(r));
  }

  list(a: Access | undefined, project: string, q: URLSearchParams) {
    must(a, this.onProject(project, 'secretmanager.secrets.list'));
    const prefix = `projects/${this.projects.numberOf(project)}/secrets/`;
    const filter = labelFilter(q.get('filter'));
    const all = [...this.state.secrets.values()]
      .filter((s) => s.name.startsWith(prefix) && filter(s))
      .sort((x, y) => (x.name < y.name ? -1 : 1));
    return page(all.map(secretJson), q, 'secrets');
  }

  async patch(a: Access | undefined, r: SecretRef, mask: string | null, body: Record<string, unknown>) {
    must(a, this.onSecret(r, 'secretmanager.secrets.update'));
    const s = this.secretOf(r);
    const fields = (mask ?? '').split(',').filter(Boolean);
    if (fields.length === 0) throw badRequest('updateMask is required.');
    let next: StoredSecret = { ...s };
    for (const f of fields) {
      if (f === 'labels') next = { ...next, labels: checkLabels(body['labels']) };
      else if (f === 'annotations')
        next = { ...next, annotations: stringMap(body['annotations'], 'annotations') };
      else throw badRequest(`updateMask: the field ${f} cannot be updated here.`);
    }
    if (typeof body['etag'] === 'string' && body['etag'] !== s.etag)
      throw new SecretManagerError('ABORTED', `The etag of Secret [${r.name}] does not match.`);
    next = { ...next, etag: this.state.etag() };
    await this.state.putSecret(next);
    return secretJson(next);
  }

  async remove(a: Access | undefined, r: SecretRef, etag: string | null) {
    must(a, this.onSecret(r, 'secretmanager.secrets.delete'));
    const s = this.secretOf(r);
    if (etag !== null && etag !== s.etag)
      throw new SecretManagerError('ABORTED', `The etag of Secret [${r.name}] does not match.`);
    await this.state.deleteSecret(r.name);
    return {};
  }

  async addVersion(a: Access | undefined, r: SecretRef, body: Record<string, unknown>) {
    must(a, this.onSecret(r, 'secretmanager.versions.add'));
    const s = this.secretOf(r);
    const payload = decodePayload(body['payload']);
    if (payload.crc !== undefined && payload.crc !== crc32c(payload.bytes))
      throw badRequest('The payload does not match its dataCrc32c: it was corrupted on the way.');
    const list = this.state.versions.get(r.name) ?? [];
    const version: StoredVersion = {
      number: list.length + 1,
      state: 'ENABLED',
      createTime: timestamp(),
      data: payload.data,
      crc32c: String(crc32c(payload.bytes)),
      clientSpecifiedPayloadChecksum: payload.crc !== undefined,
      etag: this.state.etag(),
    };
    await this.state.putVersion(r.name, version);
    return this.versionJson(s, version);
  }

  private versionJson(s: StoredSecret, v: StoredVersion): Record<string, unknown> {
    return {
      name: `${s.name}/versions/${v.number}`,
      createTime: v.createTime,
      ...(v.destroyTime ? { destroyTime: v.destroyTime } : {}),
      state: v.state,
      replicationStatus: replicationStatus(s.replication),
      etag: v.etag,
      clientSpecifiedPayloadChecksum: v.clientSpecifiedPayloadChecksum,
    };
  }

  /** The check on a version, named as resolved when it exists (`latest` → its number). */
  private onVersion(
    r: SecretRef,
    asked: string,
    permission: string,
  ): { check: Check; version?: StoredVersion } {
    if (asked !== 'latest' && !/^[1-9]\d{0,18}$/.test(asked))
      throw badRequest(`Invalid secret version [${asked}]: a version number or "latest".`);
    const list = (this.state.versions.get(r.name) ?? []).filter(Boolean);
    const version = asked === 'latest' ? list.at(-1) : list.find((v) => String(v.number) === asked);
    const check: Check = {
      permission,
      asked: `${r.asked}/versions/${asked}`,
      resource: `${r.policyName}/versions/${version?.number ?? asked}`,
      conditionName: `${r.name}/versions/${version?.number ?? asked}`,
      resourceType: VERSION_TYPE,
      own: this.ownPolicy(r),
    };
    return version ? { check, version } : { check };
  }

  private version(a: Access | undefined, r: SecretRef, asked: string, permission: string) {
    const { check, version } = this.onVersion(r, asked, permission);
    must(a, check);
    const s = this.secretOf(r);
    if (!version)
      throw new SecretManagerError(
        'NOT_FOUND',
        asked === 'latest'
          ? `Secret [${r.name}] not found or has no versions.`
          : `Secret Version [${r.name}/versions/${asked}] not found.`,
      );
    return { s, version };
  }

  getVersion(a: Access | undefined, r: SecretRef, asked: string) {
    const { s, version } = this.version(a, r, asked, 'secretmanager.versions.get');
    return this.versionJson(s, version);
  }

  listVersions(a: Access | undefined, r: SecretRef, q: URLSearchParams) {
    must(a, this.onSecret(r, 'secretmanager.versions.list'));
    const s = this.secretOf(r);
    const newestFirst = [...(this.state.versions.get(r.name) ?? [])].filter(Boolean).reverse();
    const body = page(
      newestFirst.map((v) => this.versionJson(s, v)),
      q,
      'versions',
    );
    return { ...body, totalSize: newestFirst.length };
  }

  access(a: Access | undefined, r: SecretRef, asked: string) {
    const { s, version } = this.version(a, r, asked, 'secretmanager.versions.access');
    const name = `${s.name}/versions/${version.number}`;
    if (version.state !== 'ENABLED')
      throw new SecretManagerError(
        'FAILED_PRECONDITION',
        `Secret Version [${name}] is in ${version.state} state.`,
      );
    return { name, payload: { data: version.data ?? '', dataCrc32c: version.crc32c } };
  }

  async setState(
    a: Access | undefined,
    r: SecretRef,
    asked: string,
    to: VersionState,
    body: Record<string, unknown>,
  ) {
    const verb = to === 'ENABLED' ? 'enable' : to === 'DISABLED' ? 'disable' : 'destroy';
    const { s, version } = this.version(a, r, asked, `secretmanager.versions.${verb}`);
    const name = `${s.name}/versions/${version.number}`;
    if (typeof body['etag'] === 'string' && body['etag'] !== version.etag)
      throw new SecretManagerError('ABORTED', `The etag of Secret Version [${name}] does not match.`);
    if (version.state === 'DESTROYED')
      throw new SecretManagerError('FAILED_PRECONDITION', `Secret Version [${name}] is in DESTROYED state.`);
    const { data: _data, ...kept } = version;
    const next: StoredVersion =
      to === 'DESTROYED'
        ? { ...kept, state: to, destroyTime: timestamp(), etag: this.state.etag() }
        : { ...version, state: to, etag: this.state.etag() };
    await this.state.putVersion(r.name, next);
    return this.versionJson(s, next);
  }

  getIamPolicy(a: Access | undefined, r: SecretRef) {
    must(a, this.onSecret(r, 'secretmanager.secrets.getIamPolicy'));
    return policyJson(this.secretOf(r).policy);
  }

  async setIamPolicy(a: Access | undefined, r: SecretRef, body: Record<string, unknown>) {
    must(a, this.onSecret(r, 'secretmanager.secrets.setIamPolicy'));
    const s = this.secretOf(r);
    const policy = body['policy'];
    if (!policy || typeof policy !== 'object') throw badRequest('policy is required.');
    const p = policy as Record<string, unknown>;
    const bindings = checkBindings(p);
    const current = policyJson(s.policy)['etag'];
    if (typeof p['etag'] === 'string' && p['etag'] !== current)
      throw new SecretManagerError(
        'ABORTED',
        'There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.',
      );
    const stored: StoredPolicy = {
      version: bindings.some((b) => b.condition) ? 3 : 1,
      bindings,
      etag: Buffer.from(this.state.etag()).toString('base64'),
    };
    await this.state.putSecret({ ...s, policy: stored });
    return policyJson(stored);
  }

  /** The permissions the caller holds on the secret; none (not 404) when it does not exist. */
  testIamPermissions(a: Access | undefined, r: SecretRef, body: Record<string, unknown>) {
    const asked = body['permissions'] ?? [];
    if (!Array.isArray(asked) || !asked.every((p) => typeof p === 'string'))
      throw badRequest('permissions must be a list of permission names.');
    for (const p of asked as string[])
      if (!/^secretmanager\.(secrets|versions)\.[A-Za-z]+$/.test(p))
        throw badRequest(`Permission ${p} is not valid for a secret.`);
    if (!this.state.secrets.has(r.name)) return {};
    const held = (asked as string[]).filter((p) => holds(a, this.onSecret(r, p)));
    return held.length ? { permissions: held } : {};
  }
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string'))
    throw badRequest(`${what} must be a map of strings.`);
  return { ...(v as Record<string, string>) };
}

/** `labels.<key>=<value>` terms joined by spaces or AND: the filter this emulator reads. */
function labelFilter(filter: string | null): (s: StoredSecret) => boolean {
  if (!filter) return () => true;
  const terms = filter.split(/\s+(?:AND\s+)?/).filter(Boolean);
  const pairs = terms.map((t) => {
    const m = /^labels\.([\p{Ll}\p{Lo}\p{N}_-]+)[=:]([\p{Ll}\p{Lo}\p{N}_-]*|\*)$/u.exec(t);
    if (!m) throw notImplemented(`The filter term ${JSON.stringify(t)} (only labels.<key>=<value>)`);
    return [m[1] as string, m[2] as string] as const;
  });
  return (s) => pairs.every(([k, v]) => (v === '*' ? k in s.labels : s.labels[k] === v));
}

/** A page of a list: `pageSize` (default and most 25 000), `pageToken` from the page before. */
function page<T>(items: readonly T[], q: URLSearchParams, key: string): Record<string, unknown> {
  const size = q.get('pageSize') === null ? 25_000 : Number(q.get('pageSize'));
  if (!Number.isInteger(size) || size < 0 || size > 25_000) throw badRequest('pageSize must be 0 to 25000.');
  const token = q.get('pageToken');
  const from = token ? Number(Buffer.from(token, 'base64url').toString('utf8')) : 0;
  if (!Number.isInteger(from) || from < 0) throw badRequest('pageToken is not one this list gave.');
  const to = from + (size === 0 ? 25_000 : size);
  const out: Record<string, unknown> = {};
  if (items.length > from) out[key] = items.slice(from, to);
  if (to < items.length) out['nextPageToken'] = Buffer.from(String(to)).toString('base64url');
  return out;
}
