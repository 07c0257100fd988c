/**
 * The Chromium the browser tests run in, headless, without a sandbox. Never downloaded: Debian's
 * (`/usr/bin/chromium`) where it is installed, else the one the npm package `@sparticuz/chromium`
 * (a devDependency, MIT) carries inside its tarball, unpacked once per version into the system's
 * temporary folder with the libraries and fonts it ships beside it. Where neither launches, the
 * launch throws, naming both reasons: a browser test fails, it never skips (docs/local.md, "Tests").
 *
 * `EVENTBUS_CHROMIUM=packaged` takes the packaged one even where Debian's is installed,
 * `EVENTBUS_CHROMIUM=debian` only Debian's (no fallback).
 */
import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress, createBrotliDecompress } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** A browser binary and what it needs in its environment. */
export interface ChromiumBinary {
  readonly kind: 'debian' | 'packaged';
  readonly path: string;
  readonly env?: Readonly<Record<string, string>>;
}

const SWITCHES = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Launches a Chromium (Debian's, else the packaged one) or throws why none launches; `extra`:
 * more switches (`--host-resolver-rules=MAP www.shop.test 127.0.0.1` for a site with a
 * registrable domain).
 */
export async function launchChromium(extra: readonly string[] = []): Promise<Browser> {
  const choice = process.env.EVENTBUS_CHROMIUM ?? '';
  if (!['', 'debian', 'packaged'].includes(choice))
    throw new Error(`EVENTBUS_CHROMIUM is "${choice}": say "debian", "packaged" or leave it unset`);
  const failures: string[] = [];
  const binaries: (() => Promise<ChromiumBinary>)[] = [];
  if (choice !== 'packaged') binaries.push(async () => debianChromium());
  if (choice !== 'debian') binaries.push(packagedChromium);
  for (const binary of binaries) {
    let found: ChromiumBinary | undefined;
    try {
      found = await binary();
      return await chromium.launch({
        executablePath: found.path,
        args: [...SWITCHES, ...extra],
        ...(found.env ? { env: { ...process.env, ...found.env } } : {}),
      });
    } catch (error) {
      failures.push(`${found?.kind ?? 'lookup'} (${found?.path ?? '-'}): ${(error as Error).message}`);
    }
  }
  throw new Error(`no Chromium launches for the browser tests:\n${failures.join('\n')}`);
}

function debianChromium(): ChromiumBinary {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is not installed`);
  return { kind: 'debian', path: CHROMIUM };
}

/** The packaged Chromium's folder inside node_modules: chromium.br and three .tar.br beside it. */
function packagedBin(): { bin: string; version: string } {
  const index = fileURLToPath(import.meta.resolve('@sparticuz/chromium'));
  const pkg = JSON.parse(readFileSync(join(dirname(index), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return { bin: join(dirname(index), '..', 'bin'), version: pkg.version };
}

/**
 * The packaged Chromium, unpacked into `<tmp>/eventbus-chromium-<version>/` on first use: the
 * binary (Chromium's headless shell, which loads SwiftShader's libraries from its own folder),
 * `lib/` (NSS, NSPR and expat, built for Amazon Linux 2023 and the only libraries it loads
 * beyond glibc's), and `fonts/` (Open Sans) with a fontconfig file naming them first and the
 * system's fonts after. Unpacked into a scratch folder and renamed into place whole, so parallel
 * test workers never see half a browser.
 */
export async function packagedChromium(): Promise<ChromiumBinary> {
  const { bin, version } = packagedBin();
  const home = join(tmpdir(), `eventbus-chromium-${version}`);
  if (!existsSync(join(home, 'chromium'))) {
    const scratch = await mkdtemp(`${home}.part-`);
    try {
      await pipeline(
        createReadStream(join(bin, 'chromium.br')),
        createBrotliDecompress(),
        createWriteStream(join(scratch, 'chromium'), { mode: 0o755 }),
      );
      await untar(join(bin, 'swiftshader.tar.br'), scratch);
      await untar(join(bin, 'al2023.tar.br'), scratch);
      await untar(join(bin, 'fonts.tar.br'), join(scratch, 'fonts'));
      await writeFile(join(scratch, 'fonts.conf'), fontsConf(home));
      await rename(scratch, home);
    } catch (error) {
      await rm(scratch, { recursive: true, force: true });
      // Another worker renamed its copy into place first: use that one.
      if (!existsSync(join(home, 'chromium'))) throw error;
    }
  }
  const libs = [join(home, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return {
    kind: 'packaged',
    path: join(home, 'chromium'),
    // Its locale follows LANG, unlike Debian's (en-US whatever LANG says): under LANG=C its
    // navigator.language is `und`, unset `en-US@posix`, and pages that format with Intl or a
    // chart library that reads the language break. The tests' browser speaks en-US on both.
    env: {
      LD_LIBRARY_PATH: libs,
      FONTCONFIG_FILE: join(home, 'fonts.conf'),
      LANG: 'en_US.UTF-8',
      LANGUAGE: 'en_US',
      LC_ALL: 'en_US.UTF-8',
    },
  };
}

function fontsConf(home: string): string {
  return [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    `  <dir>${join(home, 'fonts', 'fonts')}</dir>`,
    '  <dir>/usr/share/fonts</dir>',
    `  <cachedir>${join(home, 'fonts-cache')}</cachedir>`,
    '</fontconfig>',
    '',
  ].join('\n');
}

/**
 * Unpacks a Brotli-compressed ustar archive of plain files and folders (all the package ships)
 * into `into`; any other entry, or a path leaving `into`, is refused.
 */
async function untar(archive: string, into: string): Promise<void> {
  const tar = await promisify(brotliDecompress)(readFileSync(archive));
  const text = (from: number, length: number) =>
    tar.toString('latin1', from, from + length).replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length; ) {
    const name = text(at + 345, 155) ? `${text(at + 345, 155)}/${text(at, 100)}` : text(at, 100);
    if (name === '') break; // the two zero blocks that end an archive
    const size = Number.parseInt(text(at + 124, 12).trim() || '0', 8);
    const type = text(at + 156, 1) || '0';
    const target = normalize(join(into, name));
    if (!target.startsWith(`${normalize(into)}/`) && target !== normalize(into))
      throw new Error(`${archive}: entry ${name} leaves the folder`);
    if (type === '5') await mkdir(target, { recursive: true });
    else if (type === '0') {
      await mkdir(dirname(target), { recursive: true });
      const mode = Number.parseInt(text(at + 100, 8).trim() || '644', 8) & 0o777;
      await writeFile(target, tar.subarray(at + 512, at + 512 + size), { mode });
    } else throw new Error(`${archive}: entry ${name} of type ${type} is not a file or folder`);
    at += 512 + Math.ceil(size / 512) * 512;
  }
}
