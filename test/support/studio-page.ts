/**
 * One studio page in Debian's Chromium at a width (the test is skipped where Chromium is not
 * installed): the walk runs on it, then nothing may scroll sideways outside the page's declared
 * scroll containers (`scrollWidth ≤ innerWidth`) and no script error or console error may have
 * happened (a CSP refusal is one).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';

export async function onStudioPage(
  ctx: Mocha.Context,
  url: string,
  width: number,
  walk: (page: Page) => Promise<void>,
): Promise<void> {
  const browser = await launchChromium();
  if (!browser) ctx.skip();
  try {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(url);
    await walk(page);
    const [scroll, inner] = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      window.innerWidth,
    ]);
    assert.ok(
      (scroll as number) <= (inner as number),
      `scrollWidth ${scroll} > innerWidth ${inner} at ${width} px`,
    );
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
}
