/**
 * `GET /v1/tag.js`: the first-party tag (gateway/tag/, docs/browser.md), bundled by esbuild from
 * its sources the first time it is asked for (as the studio builds its pages, studio/assets.ts),
 * or read prebuilt as `tag.js` beside the deployed bundle's main file; and `GET /v1/tag-cmp.js`,
 * its consent platform reader, which the tag loads only on a page with a CMP
 * (gateway/tag/cmp-loader.ts), prebuilt as `tag-cmp.js`. The reader is bundled first: the tag
 * carries its version, so asks for it by its immutable URL. Answered from memory, Brotli when
 * the browser takes it (every current browser does over HTTPS), else gzip when it takes that, with its version (a hash of the script) as ETag: `/v1/tag.js` is cached 5
 * minutes, `/v1/tag.js?v=<version>` a year (immutable); another version's URL gets this one,
 * cached 5 minutes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { type BuildCache, readBuild, writeBuild } from '../adapters/build-cache.ts';
import { apiError } from '../core/errors.ts';
import { andThen, type MaybePromise } from '../core/maybe-async.ts';
import { CLICK_IDS, PAGE_COOKIES } from '../core/platforms/facts.ts';
import type { PageCookie } from '../core/platforms/platform.ts';
import { type Runtime, refuseMethod, sendError } from './runtime.ts';

/** The tag as served. */
export interface Tag {
  readonly body: Buffer;
  readonly gzipped: Buffer;
  /** Brotli at its highest quality, text mode: about a tenth smaller than gzip for the tag. */
  readonly brotli: Buffer;
  /** The first 16 hex digits of the script's SHA-256. */
  readonly version: string;
}

/** The two scripts: the tag, and the consent platform reader it loads where a page has a CMP. */
export interface TagScripts {
  readonly tag: Buffer;
  readonly cmp: Buffer;
}
type Part = keyof TagScripts;

const source = (file: string) => fileURLToPath(new URL(file, import.meta.url));
/** The checkout: what a build's inputs are named relative to. */
const ROOT = source('..');
const ENTRIES: Readonly<Record<Part, string>> = {
  tag: source('./tag/main.ts'),
  cmp: source('./tag/cmp-entry.ts'),
};
/** The prebuilt files beside the deployed bundle (scripts/build-functions.ts writes them). */
export const PREBUILT_FILES: Readonly<Record<Part, string>> = { tag: 'tag.js', cmp: 'tag-cmp.js' };

/**
 * Terser's second pass over esbuild's bundle: its compressor (two passes, safe transforms only) and
 * its name mangling, which reuses the same short names across sibling scopes, leave text that
 * gzips about 4 % smaller than esbuild's minifier alone (docs/browser.md, "The tag's bytes").
 */
const TERSER = { ecma: 2020, compress: { passes: 2 }, mangle: true, format: { comments: false } } as const;

/** One script bundled for browsers from its sources (one IIFE, minified by esbuild, then terser). */
async function bundle(entry: string, define: Record<string, string>, inputs?: string[]): Promise<Buffer> {
  const [{ build }, { minify }] = await Promise.all([import('esbuild'), import('terser')]);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    // Browsers of the last five years (Safari 14, Chrome and Firefox of 2020 take ES2020).
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    define,
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  // Files only: the defines are inputs of their own (`<define:…>`), which the facts stand for.
  const files = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith('<'));
  inputs?.push(...files.map((p) => relative(ROOT, resolve(p))));
  const out = result.outputFiles[0];
  if (!out) throw new Error(`esbuild produced no bundle for ${entry}`);
  const { code } = await minify(out.text, TERSER);
  if (code === undefined) throw new Error(`terser produced no code for ${entry}`);
  return Buffer.from(code);
}

/**
 * A page cookie (platform facts) as the tag names it, within its byte budget: `_<field>` as
 * `<field>`, or Microsoft's `_uet<field>`, whose value loses `_uet`, as `uet<field>`
 * (gateway/tag/context.ts). A fact of another shape would be read wrong, so it stops the build.
 */
export function tagCookie(c: PageCookie): string {
  const prefix = c.strip === undefined ? '_' : c.strip === '_uet' ? '_uet' : undefined;
  if (prefix === undefined || c.cookie !== `${prefix}${c.field}`)
    throw new Error(
      `the tag reads cookies named _<field> or _uet<field> (less _uet): not ${c.cookie} → ${c.field}`,
    );
  return c.cookie.slice(1);
}

/**
 * The platforms' facts the tag is built with. Both bundles hold the tag's context module (the
 * reader imports its consent helpers), so both get them.
 */
function tagFacts(): Record<string, string> {
  return {
    // The platforms' click ids, from their facts: the tag reads them from the landing URL.
    CLICK_ID_PARAMS: JSON.stringify(CLICK_IDS.map((c) => c.param)),
    // And the cookies their pixels set that the tag reads, by name without the underscore.
    PAGE_COOKIES: JSON.stringify(PAGE_COOKIES.map(tagCookie)),
  };
}

/** A package's version, read where this checkout installed it. */
function versionOf(name: string): string {
  const require = createRequire(import.meta.url);
  return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string })
    .version;
}

/**
 * The tag built from the sources, kept between processes (adapters/build-cache.ts) while every
 * file esbuild read, the platforms' facts and the builders' versions are the same: each gateway
 * test process and each gateway run from its sources built it again, about 0.45 CPU-s of esbuild
 * and terser. The deployed gateway never builds it: its bundle carries it.
 */
async function keptTagScripts(): Promise<TagScripts> {
  const cache: BuildCache = {
    root: ROOT,
    // One per checkout: worktrees sharing node_modules do not take turns replacing it.
    dir: join(
      ROOT,
      'node_modules',
      '.cache',
      'eventbus-tag',
      createHash('sha256').update(ROOT).digest('hex').slice(0, 16),
    ),
    salt: JSON.stringify({
      v: 1,
      esbuild: versionOf('esbuild'),
      terser: versionOf('terser'),
      terserOptions: TERSER,
      facts: tagFacts(),
    }),
  };
  const names = [PREBUILT_FILES.tag, PREBUILT_FILES.cmp];
  const kept = readBuild(cache, names);
  const [tag, cmp] = names.map((n) => kept?.get(n));
  if (tag && cmp) return { tag, cmp };
  const inputs: string[] = [];
  const built = await buildTagScripts(inputs);
  writeBuild(
    cache,
    new Map([
      [PREBUILT_FILES.tag, built.tag],
      [PREBUILT_FILES.cmp, built.cmp],
    ]),
    ['tsconfig.json', ...new Set(inputs)],
  );
  return built;
}

/**
 * The tag and its reader bundled from their sources: the reader first, its version in the tag.
 * `inputs` collects the files they are made of, relative to the checkout (a kept bundle's key).
 */
export async function buildTagScripts(inputs?: string[]): Promise<TagScripts> {
  const facts = tagFacts();
  const cmp = await bundle(ENTRIES.cmp, facts, inputs);
  const tag = await bundle(
    ENTRIES.tag,
    { ...facts, CMP_VERSION: JSON.stringify(tagOf(cmp).version) },
    inputs,
  );
  return { tag, cmp };
}

/** The tag as served, from a script. */
export function tagOf(body: Buffer): Tag {
  return {
    body,
    gzipped: gzipSync(body, { level: 9 }),
    brotli: brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    version: createHash('sha256').update(body).digest('hex').slice(0, 16),
  };
}

type Served = Readonly<Record<Part, Tag>>;
let loaded: Served | null | undefined;
let loading: Promise<Served | null> | undefined;

/** The prebuilt scripts beside this file, when both are there. */
function prebuilt(): TagScripts | undefined {
  const [tag, cmp] = [PREBUILT_FILES.tag, PREBUILT_FILES.cmp].map((f) => source(`./${f}`));
  if (!existsSync(tag as string) || !existsSync(cmp as string)) return undefined;
  return { tag: readFileSync(tag as string), cmp: readFileSync(cmp as string) };
}

/** The scripts, loaded once per process: values once loaded, `null` when they cannot be built here. */
function tagsNow(rt: Runtime): MaybePromise<Served | null> {
  if (loaded !== undefined) return loaded;
  const ready = prebuilt();
  loading ??= (ready ? Promise.resolve(ready) : keptTagScripts()).then(
    (s) => (loaded = { tag: tagOf(s.tag), cmp: tagOf(s.cmp) }),
    (err: unknown) => {
      rt.log({ severity: 'ERROR', message: `the tag could not be built: ${(err as Error).message}` });
      loaded = null;
      return loaded;
    },
  );
  return loading;
}

/** Answers `GET|HEAD /v1/tag.js[?v=<version>]` (`part` tag) and `/v1/tag-cmp.js[?v=<version>]` (`cmp`). */
export function serveTag(
  rt: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  query: string,
  part: Part = 'tag',
): MaybePromise<void> {
  if (method !== 'GET' && method !== 'HEAD') {
    return refuseMethod(rt, req, res, 'GET, HEAD, OPTIONS');
  }
  return andThen(tagsNow(rt), (tags) => answer(rt, req, res, method, query, tags?.[part] ?? null));
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
  const encoding = chooseEncoding(req.headers['accept-encoding']);
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
  const body = encoding === 'br' ? tag.brotli : encoding === 'gzip' ? tag.gzipped : tag.body;
  if (encoding) headers['content-encoding'] = encoding;
  headers['content-length'] = body.length;
  res.writeHead(200, headers);
  res.end(method === 'HEAD' ? undefined : body);
}

/**
 * The coding to answer in from an Accept-Encoding header: `br` before `gzip` when both are taken,
 * none when neither is. A coding listed with `q=0` is refused (RFC 9110, 12.5.3), so
 * `br;q=0, gzip` gets gzip; other weights are not ranked, as both codings are always on hand.
 */
export function chooseEncoding(header: string | string[] | undefined): 'br' | 'gzip' | undefined {
  const taken = new Set<string>();
  for (const part of String(header ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((t) => t.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) taken.add(name);
  }
  if (taken.has('br')) return 'br';
  if (taken.has('gzip') || taken.has('*')) return 'gzip';
  return undefined;
}
