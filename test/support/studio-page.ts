/**
 * One studio page in Chromium (test/support/chromium.ts) at a width: the walk runs on it, then nothing may scroll sideways outside the page's declared
 * scroll containers (`scrollWidth ≤ innerWidth`), every visible control (link, button, field,
 * summary) must be reached by Tab, and no script error or console error may have happened (a CSP
 * refusal is one) — the checks of test/support/page-checks.ts.
 *
 * A describe block that calls `studioPageBrowser()` opens its pages in one Chromium, launched
 * before its first test and closed after its last (each page in a context of its own, as a new
 * browser would give it: no cookie or storage crosses); elsewhere each page gets its own Chromium.
 */
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { assertNoSidewaysScroll, assertTabReachesEveryControl } from './page-checks.ts';

let shared: Browser | undefined;

/** One Chromium for the describe block's studio pages (call it at describe time). */
export function studioPageBrowser(): void {
  before(async () => {
    shared = await launchChromium();
  });
  after(async () => {
    const browser = shared;
    shared = undefined;
    await browser?.close();
  });
}

export async function onStudioPage(
  url: string,
  width: number,
  walk: (page: Page) => Promise<void>,
): Promise<void> {
  const own = shared ? undefined : await launchChromium();
  const browser = (shared ?? own) as Browser;
  let page: Page | undefined;
  try {
    // browser.newPage() gives the page a context of its own, closed with it.
    page = await browser.newPage({ viewport: { width, height: 900 } });
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
    await (own ? own.close() : page?.close());
  }
}
