/**
 * A browser walk against the whole local environment (`npm start`), for a describe block:
 * Chromium (test/support/chromium.ts), the local CLI on a fresh data
 * dir and free ports, the BigQuery emulator's client, the studio's URL with the admin token, and
 * a directory for screenshots ($SCREENSHOTS, default a temp dir). Also the page problems a walk
 * must not meet (uncaught errors, dialogs).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery } from '@google-cloud/bigquery';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.ts';
import { localBigQuery, startLocalCli, stopLocal } from './local-start.ts';

/** Set by the block's `before` hook: read them inside tests, never at describe time. */
export interface LocalBrowser {
  browser: Browser;
  dataDir: string;
  ports: Readonly<Record<string, number>>;
  bigquery: BigQuery;
  readonly shots: string;
  /** The studio's URL, signed in with the data dir's admin token. */
  studio(): string;
  gateway(): string;
}

export function localInBrowser(prefix: string): LocalBrowser {
  const shots = process.env.SCREENSHOTS ?? mkdtempSync(join(tmpdir(), `${prefix}shots-`));
  mkdirSync(shots, { recursive: true });
  let child: ChildProcess | undefined;
  let launched: Browser | undefined;
  const env = {
    dataDir: '',
    ports: {},
    shots,
    studio: () =>
      `http://127.0.0.1:${env.ports['studio']}/#token=${readFileSync(join(env.dataDir, 'admin-token'), 'utf8').trim()}`,
    gateway: () => `http://127.0.0.1:${env.ports['gateway']}`,
  } as Omit<LocalBrowser, 'browser' | 'bigquery'> as LocalBrowser;
  before(async () => {
    launched = await launchChromium();
    env.browser = launched;
    const local = await startLocalCli({ prefix });
    child = local.child;
    env.dataDir = local.dataDir;
    env.ports = local.ports;
    env.bigquery = await localBigQuery(local.ports);
  });
  after(async () => {
    await launched?.close();
    await stopLocal(child, env.dataDir);
  });
  return env;
}

/** The page's uncaught errors and dialogs (each dismissed), which a walk must not meet. */
export function pageProblems(page: Page): string[] {
  const seen: string[] = [];
  page.on('pageerror', (e) => seen.push(e.message));
  page.on('dialog', (d) => {
    seen.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return seen;
}
