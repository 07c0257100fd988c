/** Debian's Chromium for the browser tests (never a downloaded browser): headless, no sandbox. */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Launches it, or undefined where it is not installed (the test skips); `extra`: more switches
 * (`--host-resolver-rules=MAP www.shop.test 127.0.0.1` for a site with a registrable domain).
 */
export async function launchChromium(extra: readonly string[] = []): Promise<Browser | undefined> {
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
      ...extra,
    ],
  });
}
