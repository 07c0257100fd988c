/**
 * Which resource a request addresses, from its path and the environment's topics: the two
 * publish forms, a translator's endpoint, health and the OpenAPI document. Pure.
 */
import { eventNameProblem } from '../schemas/catalogue.ts';

const TOPIC_PATH = /^\/v1\/topics\/([^/]+)$/;
const PUBLISH_PATH = /^\/v1\/projects\/([^/]+)\/topics\/([^/]+):publish$/;
/** A translator, and optionally its URL credential as the last segment (docs/senders.md). */
const TRANSLATOR_PATH = /^\/v1\/translators\/([a-z][a-z0-9_-]{0,62})(?:\/([A-Za-z0-9_-]{1,128}))?$/;
const NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const RESERVED_TOPICS = new Set(['deliveries']);

/** Where a publish goes: a configured topic, or `events` under an event name from the path. */
export interface Target {
  readonly topic: string;
  readonly eventName?: string;
}

export type Route =
  | { readonly kind: 'health' }
  | { readonly kind: 'openapi' }
  | { readonly kind: 'publish'; readonly form: 'topics' | 'publish'; readonly target: Target }
  | {
      readonly kind: 'translate';
      readonly translator: string;
      /** A credential given in the path (senders that can only be given a URL). */
      readonly pathCredential?: string;
    }
  | {
      /** Segment's HTTP API paths, served by the translator named `segment` (docs/senders.md). */
      readonly kind: 'segment';
      readonly call: SegmentCall;
    }
  | { readonly kind: 'not_found' };

/** The calls of Segment's HTTP API (RudderStack's is the same): a batch, or one call of a type. */
export type SegmentCall = 'batch' | 'track' | 'identify' | 'page' | 'screen' | 'group' | 'alias';
const SEGMENT_PATH = /^\/v1\/(batch|track|identify|page|screen|group|alias)$/;
/** What a Segment-compatible sender's calls are translated by. */
export const SEGMENT_TRANSLATOR = 'segment';

/** The path and query of a request URL (no URL parsing for the common case). */
export function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/** Resolves a request path against the project and its producer topics. */
export function route(path: string, project: string, topics: ReadonlySet<string>): Route {
  if (path === '/health') return { kind: 'health' };
  if (path === '/v1/openapi.json') return { kind: 'openapi' };
  const tm = TOPIC_PATH.exec(path);
  if (tm) {
    const target = resolveTopic(tm[1] as string, topics);
    return target ? { kind: 'publish', form: 'topics', target } : { kind: 'not_found' };
  }
  const sm = SEGMENT_PATH.exec(path);
  if (sm) return { kind: 'segment', call: sm[1] as SegmentCall };
  const xm = TRANSLATOR_PATH.exec(path);
  if (xm)
    return {
      kind: 'translate',
      translator: xm[1] as string,
      ...(xm[2] !== undefined ? { pathCredential: xm[2] } : {}),
    };
  const pm = PUBLISH_PATH.exec(path);
  if (pm) {
    const topic = pm[2] as string;
    return pm[1] === project && NAME.test(topic) && topics.has(topic)
      ? { kind: 'publish', form: 'publish', target: { topic } }
      : { kind: 'not_found' };
  }
  return { kind: 'not_found' };
}

/** The topic segment of the plain form: a configured topic, or an event name aliasing `events`. */
function resolveTopic(segment: string, topics: ReadonlySet<string>): Target | undefined {
  if (!NAME.test(segment) || RESERVED_TOPICS.has(segment)) return undefined;
  if (topics.has(segment)) return { topic: segment };
  if (eventNameProblem(segment) === undefined) return { topic: 'events', eventName: segment };
  return undefined;
}
