/**
 * Module mocks for the conformance worker (worker.ts): Jest's `jest.mock` of a destination's own
 * source modules, run against the installed build. A require of a mocked module (by its source
 * path in the checkout, or a package name) is answered with the file's mock; `actual` loads the
 * real one (jest.requireActual, an automock's model). Installs its require hook on import.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { type HoistedMocks, hasModuleMocks, mockedModule } from './jest.ts';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json'));
const OTHER_MODULE_MOCK = /\bjest\.(doMock|unstable_mockModule|createMockFromModule)\(/;
const DESTINATIONS_BUILD = dirname(require.resolve('@segment/action-destinations/package.json'));
const DIST = join(DESTINATIONS_BUILD, 'dist');
export const distRequire = createRequire(join(DIST, 'index.js'));
/** The checkout's `src` folder of the file being run, where its mocked source modules are. */
let sourceRoot = '';
export function setSourceRoot(root: string): void {
  sourceRoot = root;
}
/** While set, requires load the actual modules (jest.requireActual, an automock's model). */
let bypass = false;

/** A module path as a mock's key: no extension, no trailing `/index`. */
export const bare = (path: string) => path.replace(/\.(ts|js)$/, '').replace(/\/index$/, '');

/** The installed build's file of a source module of the checkout (`<src>/lib/AWS/sts` → `dist/lib/AWS/sts.js`). */
export function builtOf(key: string): string {
  const rel = key.slice(sourceRoot.length + 1);
  const file = [join(DIST, `${rel}.js`), join(DIST, rel, 'index.js')].find((f) => existsSync(f));
  if (!key.startsWith(`${sourceRoot}/`) || !file) throw new Error(`no installed build of ${key}`);
  return file;
}

export function actual<T>(load: () => T): T {
  bypass = true;
  try {
    return load();
  } finally {
    bypass = false;
  }
}

const loader = require('node:module') as {
  _load(request: string, parent: { filename?: string } | undefined, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: unknown, isMain: boolean): string;
};
const load = loader._load;
loader._load = (request, parent, isMain) => {
  if (bypass || !hasModuleMocks()) return load(request, parent, isMain);
  let key: string | undefined;
  if (!request.startsWith('.') && !request.startsWith('/') && !request.startsWith('node:')) key = request;
  else if (request.startsWith('.') && parent?.filename?.startsWith(`${DIST}/`)) {
    const file = loader._resolveFilename(request, parent, isMain);
    key = `${sourceRoot}/${bare(file.slice(DIST.length + 1))}`;
  }
  const mocked = key && mockedModule(key, () => actual(() => load(request, parent, isMain)));
  return mocked ? mocked.value : load(request, parent, isMain);
};
(globalThis as Record<string, unknown>)['__segmentConformanceMocked'] = (key: string) =>
  mockedModule(key, () => actual(() => require(builtOf(key))))?.value ?? require(builtOf(key));

/** The test file with its mock calls hoisted, and its mocked source modules handed out as mocks. */
export function mocks(file: string, hoisted: HoistedMocks, keys: ReadonlySet<string>): Plugin {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    name: 'module-mocks',
    setup(b) {
      b.onResolve({ filter: /^segment-conformance-hoisted-mocks$/ }, () => ({
        path: file,
        namespace: 'hoisted-mocks',
      }));
      b.onLoad({ filter: /.*/, namespace: 'hoisted-mocks' }, () => ({
        contents: hoisted.hoisted,
        loader: 'ts',
        resolveDir: dirname(file),
      }));
      b.onLoad({ filter: new RegExp(`^${escaped}$`) }, () => ({ contents: hoisted.rest, loader: 'ts' }));
      b.onResolve({ filter: /^\./ }, (args) => {
        const key = bare(join(args.resolveDir, args.path));
        return keys.has(key) ? { path: key, namespace: 'module-mock' } : undefined;
      });
      b.onLoad({ filter: /.*/, namespace: 'module-mock' }, (args) => ({
        contents: `module.exports = globalThis.__segmentConformanceMocked(${JSON.stringify(args.path)})`,
        loader: 'js',
      }));
    },
  };
}

/** Why a file's module mocks cannot be run here, or undefined. */
export function mocksRefused(text: string, hoisted: HoistedMocks | undefined): string | undefined {
  if (OTHER_MODULE_MOCK.test(text)) return 'module mocks (jest.mock)';
  if (!/\bjest\.mock\(/.test(text)) return undefined;
  const written = (text.match(/^[^\n/]*\bjest\.mock\(/gm) ?? []).length;
  if (!hoisted || hoisted.specs.length !== written) return 'module mocks (jest.mock)';
  if (hoisted.specs.some((s) => s.startsWith('@segment/actions-core')))
    return 'module mocks of actions-core (the runtime under test)';
  return undefined;
}
