/**
 * The tag's browser tests' world: Debian's Chromium, a site on a loopback origin serving each
 * path's page (the stub snippet, the path's own head script, then the tag), and a gateway with a
 * recording publisher and an unlimited write key for that origin.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { issueKey } from '../../gateway/credentials.ts';
import { launchChromium } from '../support/chromium.ts';
import { baseSettings, type FakePublisher, startTestGateway, type TestGateway } from './support.ts';

/** Segment's stub snippet: calls made before the tag loads are queued as `[method, ...args]`. */
export const STUB = `!function(){var a=window.analytics=window.analytics||[];if(!a.eventbus)["page","track","identify","reset","consent","debug","flush","ready"].forEach(function(m){a[m]=a[m]||function(){a.push([m].concat([].slice.call(arguments)))}})}();`;

/** A path's page: its head script (after the stub) and the tag script's extra attributes. */
export interface SitePage {
  readonly head: string;
  readonly attrs: string;
}

export interface TagSite {
  readonly browser: Browser;
  readonly gateway: TestGateway;
  readonly origin: string;
  readonly close: () => Promise<unknown>;
}

/** Starts it all (a Chromium from test/support/chromium.ts, which throws where none launches). */
export async function startTagSite(
  publisher: FakePublisher,
  pageAt: (path: string) => SitePage,
): Promise<TagSite> {
  const browser = await launchChromium();
  let key = '';
  let tagUrl = '';
  const site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    const p = pageAt(path);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${path}</title><script>${STUB}
${p.head}
</script><script async src="${tagUrl}" data-key="${key}" ${p.attrs}></script></head><body>${path}</body></html>`);
  }).listen(0, '127.0.0.1');
  await once(site, 'listening');
  const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const gateway = await startTestGateway({
    publisher,
    settings: baseSettings({ producers: { origins: [origin] } }),
  });
  tagUrl = `${gateway.url}/v1/tag.js`;
  key = await gateway.store.update((keys) => {
    const { set, secret } = issueKey(
      keys,
      { origins: [origin], rateLimitPerSecond: 100_000 },
      randomBytes,
      new Date(),
    );
    return { set, result: secret };
  });
  const close = () => Promise.all([browser.close(), gateway.close(), new Promise((r) => site.close(r))]);
  return { browser, gateway, origin, close };
}
