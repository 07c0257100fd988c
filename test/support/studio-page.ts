/**
 * One studio page in Chromium (test/support/chromium.ts) at a width: the walk runs on it, then nothing may scroll sideways outside the page's declared
 * scroll containers (`scrollWidth ≤ innerWidth`), every visible control (link, button, field,
 * summary) must be reached by Tab, and no script error or console error may have happened (a CSP
 * refusal is one) — the checks of test/support/page-checks.ts.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { assertNoSidewaysScroll, assertTabReachesEveryControl } from './page-checks.ts';

export async function onStudioPage(
  url: string,
  width: number,
  walk: (page: Page) => Promise<void>,
): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(url);
    await walk(page);
    await assertNoSidewaysScroll(page);
    await assertTabReachesEveryControl(page);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
}
