/**
 * What every studio page is checked for in a browser test (issue #43): it does not scroll
 * sideways at its size (`scrollWidth ≤ innerWidth`; wide tables scroll inside their own boxes),
 * every visible control is reached by Tab, and axe-core finds no serious or critical
 * accessibility violation.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export async function assertNoSidewaysScroll(page: Page): Promise<void> {
  const [scroll, inner] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    window.innerWidth,
  ]);
  assert.ok(scroll <= inner, `the page is ${scroll} px wide in a ${inner} px window`);
}

/** Each visible, enabled control gets the focus when Tab is pressed from the top of the page. */
export async function assertTabReachesEveryControl(page: Page): Promise<void> {
  const controls = await page.evaluate(() => {
    const all = [
      ...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, summary'),
    ].filter((e) => e.getClientRects().length > 0 && !(e as HTMLButtonElement).disabled);
    all.forEach((e, i) => {
      e.dataset['tabCheck'] = String(i);
    });
    return all.length;
  });
  const reached = new Set<string>();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  for (let i = 0; i < controls + 5 && reached.size < controls; i++) {
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
  // Evaluated, not a <script> tag: the studio's Content-Security-Policy refuses inline scripts.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    interface AxeViolation {
      id: string;
      impact?: string;
      nodes: { target: unknown }[];
    }
    const r = await axe.run();
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
  });
  assert.deepEqual(violations, [], 'axe-core: serious or critical violations');
}

/** All three checks. */
export async function assertPageUsable(page: Page): Promise<void> {
  await assertNoSidewaysScroll(page);
  await assertNoSeriousAxeViolations(page);
  await assertTabReachesEveryControl(page);
}
