/**
 * The browser tests' Chromium where Debian's is absent (test/support/chromium.ts): the one the
 * npm package `@sparticuz/chromium` carries, unpacked beside its libraries and fonts, launches
 * and draws text in a real font; a wrong choice of browser is refused, never skipped. `.ci/run`
 * runs this file once more with Debian's Chromium hidden in a mount namespace.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { launchChromium, packagedChromium } from '../support/chromium.ts';

/** Runs `body` with EVENTBUS_CHROMIUM set to `value`, then puts the variable back. */
async function withChoice<T>(value: string, body: () => Promise<T>): Promise<T> {
  const before = process.env.EVENTBUS_CHROMIUM;
  process.env.EVENTBUS_CHROMIUM = value;
  try {
    return await body();
  } finally {
    if (before === undefined) delete process.env.EVENTBUS_CHROMIUM;
    else process.env.EVENTBUS_CHROMIUM = before;
  }
}

describe('the browser tests: a Chromium on every machine', function () {
  // The first run on a machine unpacks about 200 MB from the package (a few CPU-seconds).
  this.timeout(60_000);

  it('the packaged Chromium unpacks with its own libraries and fonts', async () => {
    const binary = await packagedChromium();
    assert.equal(binary.kind, 'packaged');
    assert.ok(existsSync(binary.path), binary.path);
    assert.match(binary.env?.LD_LIBRARY_PATH ?? '', /eventbus-chromium-[^/]+\/lib(:|$)/);
    assert.ok(existsSync(binary.env?.FONTCONFIG_FILE ?? ''), 'its fontconfig file');
  });

  it('launches it when asked and draws a page’s text in a font it found', async () => {
    const browser = await withChoice('packaged', () => launchChromium());
    try {
      assert.match(browser.version(), /^\d+\.\d+\./);
      const page = await browser.newPage();
      await page.setContent('<p id="t" style="font-family:sans-serif">Événements reçus: 42</p>');
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('DOM.enable');
      await cdp.send('CSS.enable');
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#t' });
      const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
      // Every character drawn from a real font file, none as a missing-glyph box.
      const glyphs = fonts.reduce((sum, f) => sum + f.glyphCount, 0);
      assert.equal(glyphs, 'Événements reçus: 42'.length, JSON.stringify(fonts));
      assert.ok(
        fonts.every((f) => f.familyName !== ''),
        JSON.stringify(fonts),
      );
    } finally {
      await browser.close();
    }
  });

  it('speaks en-US as Debian’s does, whatever LANG the tests run under', async () => {
    // The packaged Chromium takes its locale from LANG: `und` under LANG=C, `en-US@posix` unset.
    for (const lang of ['C', undefined]) {
      const before = process.env.LANG;
      if (lang === undefined) delete process.env.LANG;
      else process.env.LANG = lang;
      try {
        const browser = await withChoice('packaged', () => launchChromium());
        try {
          const page = await browser.newPage();
          const seen = await page.evaluate(() => ({
            language: navigator.language,
            intl: new Intl.DateTimeFormat().resolvedOptions().locale,
            number: new Intl.NumberFormat(navigator.language).format(1234.5),
          }));
          assert.deepEqual(seen, { language: 'en-US', intl: 'en-US', number: '1,234.5' }, `LANG=${lang}`);
        } finally {
          await browser.close();
        }
      } finally {
        if (before === undefined) delete process.env.LANG;
        else process.env.LANG = before;
      }
    }
  });

  it('refuses a choice of browser it does not know, naming the ones it does', async () => {
    await assert.rejects(
      withChoice('firefox', () => launchChromium()),
      /EVENTBUS_CHROMIUM is "firefox": say "debian", "packaged" or leave it unset/,
    );
  });
});
