/**
 * The studio's resources page in Debian's Chromium: a definition applied twice (the second time
 * with a hostile description) is listed with its current version; its history shows both
 * versions, the diff between them marks exactly the changed lines, and the export downloads the
 * YAML `eventbus apply` reads back unchanged. The address keeps the kind and the resource.
 * Screenshots go to $SCREENSHOTS (default: a temp dir).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { studioInBrowser } from '../support/studio-browser.ts';

const TOKEN = 'resources-page-admin-token-0123456789';
const HOSTILE = '<img src=x onerror="window.__xss=1"> a quote';

const definition = (description: string, fields: unknown[]) => ({
  kind: 'EventDefinition',
  name: 'quote_asked',
  description,
  spec: { fields },
});

describe('studio resources page in a browser', function () {
  this.timeout(60_000);
  const ui = studioInBrowser('resources-page', { adminToken: TOKEN, adminName: 'ana' });

  const apply = async (documents: unknown[], dryRun = false) => {
    const res = await fetch(`${ui.studio().url}/v1/admin/apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ documents, dryRun }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as { changes: { change: string; version: string }[] };
  };

  it('lists, shows the history and the diff between versions, and exports re-appliable YAML', async () => {
    await apply([definition('A visitor asked for a quote.', [{ name: 'amount', type: 'number' }])]);
    await apply([
      definition(HOSTILE, [
        { name: 'amount', type: 'number' },
        { name: 'product', type: 'string' },
      ]),
    ]);
    const page = await ui.browser().newPage({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${ui.studio().url}/resources#token=${TOKEN}`);
    await page.getByText('1 resource(s).').waitFor();
    const row = page.getByRole('table', { name: 'Resources' }).getByRole('row', { name: /quote_asked/ });
    assert.match((await row.textContent()) ?? '', /quote_asked1\.1.*ana.*current/);

    await page.getByRole('button', { name: 'quote_asked' }).click();
    await page.getByText('What changed from 1.0 to 1.1:').waitFor();
    assert.equal(new URL(page.url()).search, '?kind=EventDefinition&name=quote_asked');
    const versions = page.getByRole('table', { name: 'Versions' }).locator('tbody tr');
    assert.equal(await versions.count(), 2);
    const diff = page.getByLabel('Diff from 1.0 to 1.1');
    const added = await diff.locator('span.add').allTextContents();
    const removed = await diff.locator('span.del').allTextContents();
    assert.deepEqual(removed, ['-description: A visitor asked for a quote.\n']);
    assert.equal(added.length, 3, added.join(''));
    assert.ok(added[0]?.startsWith('+description: ') && added[0].includes(HOSTILE), added[0]);
    assert.deepEqual(added.slice(1), ['+    - name: product\n', '+      type: string\n']);
    // The hostile description is text, in the table and in the diff.
    assert.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined);
    assert.equal(await page.locator('img').count(), 0);
    await page.screenshot({ path: join(ui.shots, 'resources-diff.png'), fullPage: true });

    // From nothing: the whole first version as added lines.
    await page.getByLabel('Compare').selectOption('');
    await page.getByLabel('with').selectOption('1.0');
    await page.getByText('What changed from nothing to 1.0:').waitFor();
    assert.equal(await page.getByLabel('Diff from nothing to 1.0').locator('span.del').count(), 0);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export all as YAML' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'EventDefinition.yaml');
    const text = readFileSync((await download.path()) as string, 'utf8');
    assert.match(text, /^# EventDefinition\/quote_asked 1\.1, by ana at /);
    const docs = parseAllDocuments(text).map((d) => d.toJS() as unknown);
    const again = await apply(docs, true);
    assert.deepEqual(
      again.changes.map((c) => [c.change, c.version]),
      [['unchanged', '1.1']],
      'the export applies back unchanged',
    );
    assert.deepEqual(errors, []);

    // A link with the kind and name opens the same view.
    const linked = await ui.browser().newPage();
    await linked.goto(`${ui.studio().url}/resources?kind=EventDefinition&name=quote_asked#token=${TOKEN}`);
    await linked.getByText('What changed from 1.0 to 1.1:').waitFor();
    await linked.close();
    await page.close();
  });
});
