/**
 * axe-core's accessibility check of the page as it stands: the serious and critical violations,
 * each as `rule: target (help)`. axe is evaluated through the DevTools protocol, which the
 * studio's Content-Security-Policy (scripts from 'self' only) does not apply to.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

export async function seriousAxeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(ctx: Document): Promise<unknown> } }).axe.run(document),
  )) as AxeResult;
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')} (${v.help})`));
}
