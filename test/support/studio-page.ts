/**
 * One studio page in Debian's Chromium at a width (the test is skipped where Chromium is not
 * installed): the walk runs on it, then nothing may scroll sideways outside the page's declared
 * scroll containers (`scrollWidth ≤ innerWidth`), every visible control (link, button, field,
 * summary) must be reached by Tab, and no script error or console error may have happened (a CSP
 * refusal is one).
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
    await everyControlByTab(page);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
}

/** Tabs through the page from its top and checks each visible control got the focus on the way. */
async function everyControlByTab(page: Page): Promise<void> {
  const [controls, boxes] = await page.evaluate(() => {
    const all = [
      ...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary'),
    ];
    const visible = all.filter((e) => e.offsetParent !== null && !(e as HTMLButtonElement).disabled);
    visible.forEach((e, i) => {
      e.dataset['tabCheck'] = String(i);
    });
    // Scroll boxes made focusable (tabindex=0, for keyboard scrolling) are Tab stops too.
    const boxes = document.querySelectorAll(
      '[tabindex="0"]:not(a, button, input, select, textarea, summary)',
    );
    return [visible.length, boxes.length];
  });
  const reached = new Set<string>();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < controls + boxes + 5 && reached.size < controls; i++) {
    await page.keyboard.press('Tab');
    const mark = await page.evaluate(
      () => (document.activeElement as HTMLElement | null)?.dataset['tabCheck'],
    );
    if (mark !== undefined) reached.add(mark);
  }
  assert.equal(
    reached.size,
    controls,
    `${controls - reached.size} of ${controls} controls not reached by Tab`,
  );
}
