/**
 * The studio's web pages as static assets: the HTML and CSS as written, and the creator's script
 * bundled by esbuild for the browser (core/samples, core/translate and the validators as they are;
 * `node:crypto` replaced by a SHA-256 from @noble/hashes). Built once, when the studio starts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const WEB = join(import.meta.dirname, 'web');

export async function buildAssets(): Promise<Map<string, Asset>> {
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
  return new Map<string, Asset>([
    ['/', { type: 'text/html; charset=utf-8', body: readFileSync(join(WEB, 'index.html')) }],
    ['/assets/app.css', { type: 'text/css; charset=utf-8', body: readFileSync(join(WEB, 'app.css')) }],
    ['/assets/app.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(script.contents) }],
  ]);
}
