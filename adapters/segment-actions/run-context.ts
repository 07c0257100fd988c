/**
 * The run in progress of the `segment_action` runtime (run.ts), as the fetch dispatcher and the
 * process environment read it: one AsyncLocalStorage per process, whatever number of times the
 * runtime is loaded (the conformance run loads it afresh per test file).
 *
 * Some of Segment's destinations read values from `process.env` (environment.ts: Google Ads'
 * developer token, OAuth clients). `runEnvironment` wraps the process's environment so that
 * those names answer the run in progress's values, each delivery its own destination's; the
 * forward-catalog entry puts it in place of `process.env` (the entry files alone touch it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PlatformAnswer } from '../../core/platforms/platform-answer.ts';
import { SEGMENT_ENVIRONMENT_NAMES } from '../../core/platforms/segment-action/environment.ts';

/** A request an action made: where (without its query string, which may hold a key) and what came back. */
export interface ActionRequest {
  readonly method: string;
  readonly url: string;
  readonly status?: number;
  /** The answer's Retry-After, when it gave one (the forward core holds the destination back). */
  readonly retryAfter?: string;
}

/** A request an action's request client started: whether it ended, and how it failed if it did. */
export interface StartedRequest {
  readonly done: boolean;
  /** What the request client threw (an HTTPError for a refusal, a timeout, a network failure). */
  readonly failure?: unknown;
  /** Settles (never rejects) once the request has ended. */
  readonly ended: Promise<void>;
}

/** What a token endpoint's answer said besides the access token. */
export interface TokenAnswer {
  expiresIn?: number;
  refreshToken?: string;
}

export interface RunContext {
  readonly fetch: typeof fetch;
  readonly baseUrl: string | undefined;
  /** The destination's `allowed_hosts`: its actions send nowhere else (docs/security.md, "Egress"). */
  readonly allowedHosts: readonly string[] | undefined;
  readonly requests: ActionRequest[];
  readonly bodies: string[];
  /**
   * Every request the action's request client started in this run, awaited or not (started.ts):
   * the run waits for those still in flight once the action has finished.
   */
  readonly started: StartedRequest[];
  /** The last answer, as the ledger keeps it (answer.ts). */
  answer?: PlatformAnswer;
  /**
   * Set while Segment's `refreshAccessToken` runs: its requests are listed, but their bodies
   * (credentials) are not kept, the token endpoint's answer is not the platform's, and the
   * answer's `expires_in` is noted here, and its `refresh_token` (a provider that rotates
   * answers a new one, which many definitions do not pass on: RFC 6749 §6 says to keep it).
   */
  readonly refreshing?: TokenAnswer;
  /**
   * What the destination's code reads from Segment's own environment, from our settings
   * (environment.ts): `process.env.<name>` answers it while the run's actions run.
   */
  readonly env?: Readonly<Record<string, string>>;
}

const SHARED = Symbol.for('eventbus.segment-action.run');
const shared = globalThis as { [SHARED]?: AsyncLocalStorage<RunContext> };
shared[SHARED] ??= new AsyncLocalStorage<RunContext>();

/** The run in progress (undefined outside one). */
export const current: AsyncLocalStorage<RunContext> = shared[SHARED];

const wrapped = new WeakSet<object>();

/**
 * The environment as Segment's destinations read it: a name of environment.ts answered by the run
 * in progress when its settings give it, anything else (and everything outside a run) `own`'s.
 */
export function runEnvironment<E extends object>(own: E): E {
  if (wrapped.has(own)) return own;
  const env = new Proxy(own, {
    get(target, name) {
      if (typeof name === 'string' && SEGMENT_ENVIRONMENT_NAMES.has(name)) {
        const values = current.getStore()?.env;
        if (values !== undefined && Object.hasOwn(values, name)) return values[name];
      }
      return Reflect.get(target, name);
    },
  });
  wrapped.add(env);
  return env;
}
