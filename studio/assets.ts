/**
 * The studio's web pages as static assets: the HTML and CSS as written, and the creator's script
 * bundled by esbuild for the browser (core/samples, core/translate and the validators as they are;
 * `node:crypto` replaced by a SHA-256 from @noble/hashes).
 *
 * The deployed studio carries them prebuilt in `web/` beside its bundle (scripts/build-functions.ts
 * writes them there); run from the sources, the studio builds them once when it starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const WEB = fileURLToPath(new URL('./web/', import.meta.url));

/** The pages' paths, each with its file name and media type. */
const PAGES: readonly { readonly path: string; readonly file: string; readonly type: string }[] = [
  { path: '/', file: 'index.html', type: 'text/html; charset=utf-8' },
  { path: '/assets/app.css', file: 'app.css', type: 'text/css; charset=utf-8' },
  { path: '/assets/app.js', file: 'app.js', type: 'text/javascript; charset=utf-8' },
];

/** The pages' files, by name, built from the sources (what the deployed bundle carries in web/). */
export async function buildWebFiles(): Promise<Map<string, Buffer>> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(WEB, 'creator.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    alias: { 'node:crypto': join(WEB, 'crypto-shim.ts') },
    logLevel: 'error',
  });
  const script = result.outputFiles[0];
  if (!script) throw new Error('esbuild produced no bundle for the creator');
  return new Map([
    ['index.html', readFileSync(join(WEB, 'index.html'))],
    ['app.css', readFileSync(join(WEB, 'app.css'))],
    ['app.js', Buffer.from(script.contents)],
  ]);
}

/** The pages by path: prebuilt when `web/app.js` is there (the deployed bundle), else built now. */
export async function buildAssets(): Promise<Map<string, Asset>> {
  const prebuilt = existsSync(join(WEB, 'app.js'));
  const files = prebuilt
    ? new Map(PAGES.map((p) => [p.file, readFileSync(join(WEB, p.file))]))
    : await buildWebFiles();
  return new Map(
    PAGES.map((p) => {
      const body = files.get(p.file);
      if (!body) throw new Error(`the studio's page ${p.file} is missing`);
      return [p.path, { type: p.type, body }];
    }),
  );
}
