/**
 * What every studio page is checked for in a browser test (issue #43): it does not scroll
 * sideways at its size (`scrollWidth ≤ innerWidth`; wide tables scroll inside their own boxes),
 * every visible control is reached by Tab, and axe-core finds no serious or critical
 * accessibility violation (test/support/axe.ts). test/support/studio-page.ts runs the first two
 * on a page of its own; the others call these on theirs.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seriousAxeViolations } from './axe.ts';

export async function assertNoSidewaysScroll(page: Page): Promise<void> {
  const [scroll, inner] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    window.innerWidth,
  ]);
  assert.ok(scroll <= inner, `the page is ${scroll} px wide in a ${inner} px window`);
}

/**
 * Each visible, enabled control gets the focus when Tab is pressed from the top of the page.
 * Visible as the browser renders it (`checkVisibility`: not inside a closed <details>, whose
 * content is not rendered); a radio group is one Tab stop (arrows move within it), so it counts
 * as reached when any of its radios is.
 */
export async function assertTabReachesEveryControl(page: Page): Promise<void> {
  const [controls, boxes] = await page.evaluate(() => {
    const all = [
      ...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary'),
    ].filter((e) => e.checkVisibility() && !(e as HTMLButtonElement).disabled);
    all.forEach((e, i) => {
      const radio = e instanceof HTMLInputElement && e.type === 'radio' && e.name;
      e.dataset['tabCheck'] = radio ? `radio:${e.name}` : String(i);
    });
    // Scroll boxes made focusable (tabindex=0, for keyboard scrolling) are Tab stops too.
    const boxes = document.querySelectorAll(
      '[tabindex="0"]:not(a, button, input, select, textarea, summary)',
    ).length;
    return [new Set(all.map((e) => e.dataset['tabCheck'])).size, boxes];
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
  const missed = await page.evaluate(
    (seen) =>
      [...document.querySelectorAll<HTMLElement>('[data-tab-check]')]
        .filter((e) => !seen.includes(e.dataset['tabCheck'] ?? ''))
        .map((e) => e.outerHTML.slice(0, 120)),
    [...reached],
  );
  assert.deepEqual(missed, [], 'controls Tab never reaches');
}

export async function assertNoSeriousAxeViolations(page: Page): Promise<void> {
  assert.deepEqual(await seriousAxeViolations(page), [], 'axe-core: serious or critical violations');
}

/** All three checks. */
export async function assertPageUsable(page: Page): Promise<void> {
  await assertNoSidewaysScroll(page);
  await assertNoSeriousAxeViolations(page);
  await assertTabReachesEveryControl(page);
}
