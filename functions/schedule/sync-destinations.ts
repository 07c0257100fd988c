/**
 * Step 5 of a sync chunk (sync-steps.ts): one page sent to the sync's destination — a webhook, a
 * bucket's files, a Meta custom audience, a Google Ads Customer Match list, a topic, or audience
 * events published into the pipeline. Each says
 * which rows it could not send and why (they fail; the run goes on) and throws when the page
 * should be tried again (an outage, throttling, a missing secret). What each platform's answers
 * mean is its platform folder's (core/platforms/meta/audience-answers.ts,
 * core/platforms/google-ads/responses.ts); its batch limit is there too (core/syncs/sync-run.ts).
 */
import { CREDENTIALS_ROLE, DATA_MANAGER_SCOPE } from '../../core/platforms/google-ads/driver.ts';
import { requestIdOf } from '../../core/platforms/google-ads/request-status.ts';
import { GOOGLE_ADS_RESPONSES } from '../../core/platforms/google-ads/responses.ts';
import { audienceAnswer } from '../../core/platforms/meta/audience-answers.ts';
import { classify } from '../../core/platforms/responses.ts';
import { audienceEvents } from '../../core/syncs/audience-events.ts';
import { customerMatchPageRequests, metaAudiencePageRequests } from '../../core/syncs/audience-members.ts';
import { type FailedChange, refusedForGood } from '../../core/syncs/sync-run.ts';
import {
  customerMatchTarget,
  fileBody,
  filePaths,
  syncEvents,
  webhookBody,
  webhookRejections,
} from '../../core/syncs/syncs.ts';
import type { SyncSpec } from '../../schemas/sync.ts';
import { postJson } from './connections.ts';
import { connectionOf, connectionSecret, type Page, type SyncRun } from './sync-runtime.ts';

/** What a page did at its destination: the rows that failed, and Data Manager's request ids. */
export interface Delivered {
  readonly failed: readonly FailedChange[];
  readonly requestIds: readonly string[];
}

type Destination = SyncSpec['destination'];
type Of<K extends string> = Extract<Destination, Record<K, unknown>>;

const nothingFailed: Delivered = { failed: [], requestIds: [] };

/** Sends one page to the sync's destination. */
export async function deliverPage(run: SyncRun, page: Page): Promise<Delivered> {
  const d = run.sync.spec.destination;
  if ('webhook' in d) return { failed: await toWebhook(run, d, page), requestIds: [] };
  if ('files' in d) return toFiles(run, d, page);
  if ('meta_audience' in d) return { failed: await toMetaAudience(run, d, page), requestIds: [] };
  if ('google_ads_audience' in d) return toCustomerMatch(run, d, page);
  if ('audience' in d) return toAudience(run, d, page);
  return toTopic(run, d, page);
}

/** The page as one signed POST; a 2xx may still list rows the receiver rejected. */
async function toWebhook(run: SyncRun, d: Of<'webhook'>, page: Page): Promise<readonly FailedChange[]> {
  const { deps, sync, ctx } = run;
  const c = connectionOf(deps.settings, d.webhook.connection);
  const result = await postJson(deps, c, webhookBody(sync, ctx.runId, page.number, page.changes), {
    'x-eventbus-sync-page': `${ctx.runId}#${page.number}`,
  });
  if (result.ok) return webhookRejections(result.body ?? '', page.changes);
  if (refusedForGood(result.http)) return page.changes.map((change) => ({ change, reason: result.reason }));
  throw new Error(`page ${page.number} to ${c.id}: ${result.reason}`);
}

/** The page as one part file, created only if absent (a page sent twice is one object). */
async function toFiles(run: SyncRun, d: Of<'files'>, page: Page): Promise<Delivered> {
  const { deps, sync, ctx } = run;
  const c = connectionOf(deps.settings, d.files.connection);
  if (!c.bucket) throw new Error(`connection ${c.id} has no bucket`);
  const format = d.files.format ?? 'jsonl';
  const paths = filePaths(sync.name, ctx.run.slot, ctx.runId, format);
  await deps.writeFile(
    c.bucket,
    paths.part(page.number),
    fileBody(page.changes, format),
    format === 'csv' ? 'text/csv' : 'application/x-ndjson',
  );
  return nothingFailed;
}

/** A page to a Meta custom audience: users added with POST, removed with DELETE. */
async function toMetaAudience(
  run: SyncRun,
  d: Of<'meta_audience'>,
  page: Page,
): Promise<readonly FailedChange[]> {
  const { deps, ctx } = run;
  const { audience_id } = d.meta_audience;
  const { c, value: token } = await connectionSecret(deps, d.meta_audience.connection, 'access_token');
  const built = metaAudiencePageRequests({
    ...(c.url ? { origin: c.url } : {}),
    audienceId: audience_id,
    runKey: ctx.runId,
    page: page.number,
    last: page.last,
    planned: page.cursor.planned,
    changes: page.changes,
  });
  const failed: FailedChange[] = [...built.failed];
  for (const r of built.requests) {
    const res = await deps.send(
      {
        method: r.method,
        url: `${r.path}?access_token=${encodeURIComponent(token.trim())}`,
        redactedUrl: `${r.path}?access_token=REDACTED`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(r.body),
      },
      c.timeout_ms ?? 30_000,
    );
    if (res.kind === 'network_error') throw new Error(`audience ${audience_id}: ${res.message}`);
    if (res.kind === 'refused') {
      failed.push(...r.changes.map((change) => ({ change, reason: res.reason })));
      continue;
    }
    const answer = audienceAnswer(res.status, res.body);
    if (answer.verdict === 'retry') throw new Error(`audience ${audience_id}: ${answer.reason}`);
    if (answer.verdict === 'refused')
      failed.push(...r.changes.map((change) => ({ change, reason: answer.reason })));
  }
  return failed;
}

/**
 * A page to a Google Ads Customer Match list (Data Manager): members added with
 * `audienceMembers:ingest`, removed with `:remove`, under an OAuth token (a 401 gets one fresh
 * token and one more call): the connection's `credentials` secret when it names one, else the
 * schedule function's own service account, as forward does for google_ads (adapters/google-oauth.ts:
 * empty credentials are Application Default Credentials). A refused request fails its rows
 * with Google's reason; quota and outages throw, so the chunk is tried again. Each accepted
 * request's `requestId` is kept for `requestStatus:retrieve` (`eventbus sync request-status`).
 * Pages are at most CUSTOMER_MATCH_MAX_MEMBERS rows (core/syncs/sync-run.ts, pageSize).
 */
async function toCustomerMatch(run: SyncRun, d: Of<'google_ads_audience'>, page: Page): Promise<Delivered> {
  const { deps } = run;
  const list = d.google_ads_audience;
  const c = connectionOf(deps.settings, list.connection);
  // Named but empty or unreadable still throws (the chunk is retried): never a silent fall-back.
  const credentials =
    c.secrets?.[CREDENTIALS_ROLE] === undefined
      ? ''
      : (await connectionSecret(deps, c.id, CREDENTIALS_ROLE)).value;
  if (!deps.accessToken) throw new Error('no OAuth token source in this function');
  const tokens = deps.accessToken;
  const built = customerMatchPageRequests(customerMatchTarget(list, c), page.changes);
  const failed: FailedChange[] = [...built.failed];
  const requestIds: string[] = [];
  for (const r of built.requests) {
    const call = async (fresh: boolean) => {
      const token = await tokens(credentials, DATA_MANAGER_SCOPE, fresh);
      return deps.send(
        {
          method: 'POST',
          url: r.path,
          redactedUrl: r.path,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(r.body),
        },
        c.timeout_ms ?? 30_000,
      );
    };
    let res = await call(false);
    if (res.kind === 'response' && res.status === 401) res = await call(true);
    const outcome = classify(GOOGLE_ADS_RESPONSES, res, {
      destination: { id: c.id, type: 'google_ads' },
      secrets: {},
      now: new Date(),
    });
    if (outcome.status === 'retry') throw new Error(`user list ${list.user_list_id}: ${outcome.reason}`);
    const id = outcome.status === 'delivered' && res.kind === 'response' ? requestIdOf(res.body) : undefined;
    if (id) requestIds.push(id);
    if (outcome.status === 'rejected')
      failed.push(...r.changes.map((change) => ({ change, reason: outcome.reason })));
  }
  return { failed, requestIds };
}

/** The page's upserts as events on a topic, with deterministic ids (sync, key, slot). */
async function toTopic(run: SyncRun, d: Of<'topic'>, page: Page): Promise<Delivered> {
  const { deps, sync, ctx } = run;
  for (const e of syncEvents(sync, page.changes, ctx.run.slot))
    await deps.publish(d.topic.topic ?? 'events', e.body, e.attributes);
  return nothingFailed;
}

/**
 * A page as the audience events Engage sends (core/syncs/audience-events.ts): each member's entry
 * or exit published on the events topic, to be stored, decided and forwarded like any event. A
 * row that names no member fails; the others are published before the page is committed.
 */
async function toAudience(run: SyncRun, d: Of<'audience'>, page: Page): Promise<Delivered> {
  const { deps, sync, ctx } = run;
  const built = audienceEvents(sync, page.changes, ctx.run.slot);
  for (const e of built.events) await deps.publish(d.audience.topic ?? 'events', e.body, e.attributes);
  return { failed: built.failed, requestIds: [] };
}
