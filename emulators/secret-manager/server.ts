/**
 * The Secret Manager emulator: the REST API v1 (`/v1/projects/{p}/secrets/...`) on one HTTP port,
 * as `adapters/secrets.ts`, `gateway/token-store.ts` and Google's REST clients call it
 * (docs/secret-manager-emulator.md). One emulator per data directory (owner lock). With `iam`,
 * every call is authorized first (access.ts), and each identity port's connections act as its
 * member.
 */
import type http from 'node:http';
import {
  type EmulatorOptions,
  jsonListener,
  readJsonObject,
  serveEmulator,
} from '@eventbus/emulator-common/http-serve.ts';
import {
  type Enforcement,
  type IdentityListeners,
  requestAccess,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import type { Access } from './access.ts';
import { badRequest, notImplemented, SecretManagerError } from './errors.ts';
import { Projects } from './names.ts';
import { SecretMethods } from './secrets.ts';
import { SecretState } from './state.ts';

export interface SecretManagerEmulatorOptions extends EmulatorOptions {
  /** Project id → number: the number every answer and every IAM condition names. */
  projectNumbers?: ReadonlyMap<string, string>;
}

export interface SecretManagerEmulator {
  readonly port: number;
  readonly url: string;
  readonly identityPorts: ReadonlyMap<string, number>;
  close(): Promise<void>;
}

/** A version's payload is at most 64 KiB, base64 in JSON: a request body never needs more than this. */
const BODY_LIMIT = 1 << 20;

const jsonBody = (req: http.IncomingMessage) => readJsonObject(req, BODY_LIMIT, badRequest);

/** The path after `/v1/`, decoded, and the custom verb of its last segment (`:access`). */
function route(pathname: string): { segs: string[]; verb: string | undefined } {
  const segs = pathname.split('/').filter((s, i, all) => i > 0 && !(s === '' && i === all.length - 1));
  const decoded = segs.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badRequest(`Invalid percent-encoding in the path: ${s}`);
    }
  });
  const last = decoded.at(-1) ?? '';
  const colon = last.indexOf(':');
  if (colon < 0) return { segs: decoded, verb: undefined };
  decoded[decoded.length - 1] = last.slice(0, colon);
  return { segs: decoded, verb: last.slice(colon + 1) };
}

interface Call {
  readonly req: http.IncomingMessage;
  readonly method: string;
  readonly query: URLSearchParams;
  readonly access: Access | undefined;
}

const VERSION_VERBS = { enable: 'ENABLED', disable: 'DISABLED', destroy: 'DESTROYED' } as const;

async function dispatch(
  m: SecretMethods,
  c: Call,
  segs: string[],
  verb: string | undefined,
): Promise<unknown> {
  if (segs.length === 0 || (segs.length === 1 && segs[0] === 'health')) return { status: 'ok' };
  const [v1, projects, project, kind, secret, versions, version, ...extra] = segs;
  if (v1 !== 'v1' || projects !== 'projects' || project === undefined || extra.length > 0)
    throw new SecretManagerError('NOT_FOUND', `Not found: ${c.method} /${segs.join('/')}`);
  if (kind === 'locations') throw notImplemented('Regional secrets (projects/*/locations/*)');
  if (kind !== 'secrets') throw new SecretManagerError('NOT_FOUND', `Not found: /${segs.join('/')}`);
  if (secret === undefined) {
    if (c.method === 'GET' && !verb) return m.list(c.access, project, c.query);
    if (c.method === 'POST' && !verb)
      return m.create(c.access, project, c.query.get('secretId'), await jsonBody(c.req));
    throw notImplemented(`${c.method} on the secrets collection`);
  }
  const r = m.ref(project, secret);
  if (versions === undefined) {
    if (verb === undefined) {
      if (c.method === 'GET') return m.get(c.access, r);
      if (c.method === 'PATCH') return m.patch(c.access, r, c.query.get('updateMask'), await jsonBody(c.req));
      if (c.method === 'DELETE') return m.remove(c.access, r, c.query.get('etag'));
    }
    if (verb === 'addVersion' && c.method === 'POST') return m.addVersion(c.access, r, await jsonBody(c.req));
    if (verb === 'getIamPolicy' && (c.method === 'GET' || c.method === 'POST'))
      return m.getIamPolicy(c.access, r);
    if (verb === 'setIamPolicy' && c.method === 'POST')
      return m.setIamPolicy(c.access, r, await jsonBody(c.req));
    if (verb === 'testIamPermissions' && c.method === 'POST')
      return m.testIamPermissions(c.access, r, await jsonBody(c.req));
    throw notImplemented(`${c.method} ${verb ? `:${verb}` : ''} on a secret`);
  }
  if (versions !== 'versions') throw new SecretManagerError('NOT_FOUND', `Not found: /${segs.join('/')}`);
  if (version === undefined) {
    if (c.method === 'GET' && !verb) return m.listVersions(c.access, r, c.query);
    throw notImplemented(`${c.method} on the versions collection`);
  }
  if (verb === undefined && c.method === 'GET') return m.getVersion(c.access, r, version);
  if (verb === 'access' && c.method === 'GET') return m.access(c.access, r, version);
  if (verb !== undefined && verb in VERSION_VERBS && c.method === 'POST')
    return m.setState(
      c.access,
      r,
      version,
      VERSION_VERBS[verb as keyof typeof VERSION_VERBS],
      await jsonBody(c.req),
    );
  throw notImplemented(`${c.method} ${verb ? `:${verb}` : ''} on a secret version`);
}

function handler(
  methods: SecretMethods,
  enforcement: Enforcement | undefined,
  identities: () => IdentityListeners | undefined,
): http.RequestListener {
  const unauthenticated = () => new SecretManagerError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
  return jsonListener((req, url) => {
    const access = enforcement ? requestAccess(enforcement, req, identities(), unauthenticated) : undefined;
    const { segs, verb } = route(url.pathname);
    return dispatch(
      methods,
      { req, method: req.method ?? 'GET', query: url.searchParams, access },
      segs,
      verb,
    );
  });
}

/** Starts the emulator on `host:port` (port 0 = ephemeral) with its state under `dataDir`. */
export async function startSecretManagerEmulator(
  opts: SecretManagerEmulatorOptions,
): Promise<SecretManagerEmulator> {
  const projects = new Projects(opts.projectNumbers ?? []);
  const served = await serveEmulator(opts, {
    open: (dataDir, fsync) => SecretState.open(dataDir, fsync),
    closeState: (s) => s.close(),
    handler: (s, { enforcement, identities }) =>
      handler(new SecretMethods(s, projects), enforcement, identities),
  });
  return { port: served.port, url: served.url, identityPorts: served.identityPorts, close: served.close };
}
