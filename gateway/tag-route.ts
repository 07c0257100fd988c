/**
 * `GET /v1/tag.js`: the first-party tag (gateway/tag/, docs/browser.md), bundled by esbuild from
 * its sources the first time it is asked for (as the studio builds its pages, studio/assets.ts),
 * or read prebuilt as `tag.js` beside the deployed bundle's main file. Answered from memory, gzip
 * when the browser takes it, with its version (a hash of the script) as ETag: `/v1/tag.js` is
 * cached 5 minutes, `/v1/tag.js?v=<version>` a year (immutable); another version's URL gets
 * this one, cached 5 minutes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { apiError } from '../core/errors.ts';
import { andThen, type MaybePromise } from '../core/maybe-async.ts';
import { type Runtime, refuseMethod, sendError } from './runtime.ts';

/** The tag as served. */
export interface Tag {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  /** The first 16 hex digits of the script's SHA-256. */
  readonly version: string;
}

const ENTRY = fileURLToPath(new URL('./tag/main.ts', import.meta.url));
const PREBUILT = fileURLToPath(new URL('./tag.js', import.meta.url));

/** The tag's script bundled for browsers from its sources (one IIFE, minified). */
export async function buildTagScript(): Promise<Buffer> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    // Browsers of the last five years (Safari 14, Chrome and Firefox of 2020 take ES2020).
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'error',
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error('esbuild produced no bundle for the tag');
  return Buffer.from(out.contents);
}

/** The tag as served, from a script. */
export function tagOf(body: Buffer): Tag {
  return {
    body,
    gzipped: gzipSync(body, { level: 9 }),
    version: createHash('sha256').update(body).digest('hex').slice(0, 16),
  };
}

let loaded: Tag | null | undefined;
let loading: Promise<Tag | null> | undefined;

/** The tag, loaded once per process: a value once loaded, `null` when it cannot be built here. */
function tagNow(rt: Runtime): MaybePromise<Tag | null> {
  if (loaded !== undefined) return loaded;
  loading ??= (existsSync(PREBUILT) ? Promise.resolve(readFileSync(PREBUILT)) : buildTagScript()).then(
    (body) => (loaded = tagOf(body)),
    (err: unknown) => {
      rt.log({ severity: 'ERROR', message: `the tag could not be built: ${(err as Error).message}` });
      loaded = null;
      return loaded;
    },
  );
  return loading;
}

/** Answers `GET|HEAD /v1/tag.js[?v=<version>]`. */
export function serveTag(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  query: string,
): MaybePromise<void> {
  if (method !== 'GET' && method !== 'HEAD') {
    return refuseMethod(rt, req, res, 'GET, HEAD, OPTIONS');
  }
  return andThen(tagNow(rt), (tag) => answer(rt, req, res, method, query, tag));
}

function answer(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  query: string,
  tag: Tag | null,
): void {
  if (!tag) {
    sendError(rt, req, res, apiError('NOT_FOUND', { resource: 'the tag (not built here)' }));
    return;
  }
  const etag = `"${tag.version}"`;
  const pinned = new URLSearchParams(query).get('v') === tag.version;
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const headers: Record<string, string | number> = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': pinned ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
    etag,
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
    // A page isolated with COEP may load it too.
    'cross-origin-resource-policy': 'cross-origin',
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const body = gzip ? tag.gzipped : tag.body;
  if (gzip) headers['content-encoding'] = 'gzip';
  headers['content-length'] = body.length;
  res.writeHead(200, headers);
  res.end(method === 'HEAD' ? undefined : body);
}
