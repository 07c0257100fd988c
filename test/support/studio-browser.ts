/**
 * The studio's pages in a browser test: one Chromium (test/support/chromium.ts) for the describe
 * block, a studio on a fresh registry bucket of the Cloud Storage emulator
 * for each test, and a directory for screenshots ($SCREENSHOTS, default a temp dir).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { RegistryClient } from '../../adapters/registry.ts';
import { emulatorWithFreshBuckets } from '../../emulators/storage/test/support/harness.ts';
import { buildAssets } from '../../studio/assets.ts';
import { type StudioOptions, startStudio } from '../../studio/server.ts';
import { launchChromium } from './chromium.ts';

export function studioInBrowser(
  bucketPrefix: string,
  options: Omit<StudioOptions, 'registry' | 'assets'>,
): {
  browser(): Browser;
  studio(): Awaited<ReturnType<typeof startStudio>>;
  bucket(): RegistryClient['bucket'];
  readonly shots: string;
} {
  const fx = emulatorWithFreshBuckets(bucketPrefix);
  let browser: Browser | undefined;
  let studio: Awaited<ReturnType<typeof startStudio>> | undefined;
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), `${bucketPrefix}-shots-`));
  mkdirSync(shots, { recursive: true });
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());
  beforeEach(async () => {
    studio = await startStudio({
      ...options,
      registry: new RegistryClient(fx.bucket),
      assets: await buildAssets(),
    });
  });
  afterEach(() => studio?.close());
  return {
    browser: () => browser as Browser,
    studio: () => studio as Awaited<ReturnType<typeof startStudio>>,
    bucket: () => fx.bucket,
    shots,
  };
}

/**
 * The creator's page at a width with `sample` pasted and read (its "Read as …" line shown); the
 * script errors it meets are collected in `errors`.
 */
export async function creatorWithSample(
  browser: Browser,
  url: string,
  sample: string,
  width = 1280,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.getByLabel('Paste the raw data').fill(sample);
  await page.getByRole('button', { name: 'Read the sample' }).click();
  await page.getByText(/^Read as /).waitFor();
  return { page, errors };
}
