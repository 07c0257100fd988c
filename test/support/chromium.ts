/** Debian's Chromium for the browser tests (never a downloaded browser): headless, no sandbox. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Launches it, or undefined where it is not installed (the test skips). */
export async function launchChromium(): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
