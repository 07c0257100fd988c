/**
 * What a sync's first page would send, written out for people (`eventbus sync run --dry-run`):
 * built from the same functions the schedule function sends with (webhook bodies, file parts and
 * names, topic events, audience payloads), secrets left out. Pure.
 */
import type { Connection } from '../../schemas/settings.ts';
import { WEBHOOK_HEADERS } from '../platforms/webhook/driver.ts';
import { audienceEvents } from './audience-events.ts';
import { customerMatchPageRequests, metaAudiencePageRequests } from './audience-members.ts';
import {
  type Change,
  customerMatchTarget,
  fileBody,
  filePaths,
  type SyncVersion,
  syncEvents,
  webhookBody,
} from './syncs.ts';

export interface PreviewedRequest {
  /** The request line: method and URL, an object to create, or a topic to publish on. */
  readonly title: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface PagePreview {
  readonly requests: readonly PreviewedRequest[];
  /** Rows that would not be sent, and why (they would go to sync_failed_rows). */
  readonly notSent: readonly { readonly key: Readonly<Record<string, unknown>>; readonly reason: string }[];
}

const pretty = (json: string) => JSON.stringify(JSON.parse(json), null, 2);

export function previewSyncPage(input: {
  readonly sync: SyncVersion;
  readonly connections: readonly Connection[];
  readonly runKey: string;
  readonly slot: string;
  readonly planned: number;
  readonly changes: readonly Change[];
}): PagePreview {
  const { sync, runKey } = input;
  // Restates are not sent (the dry run's query leaves them out too).
  const changes = input.changes.filter((c) => !c.restate);
  const d = sync.spec.destination;
  const connection = (id: string) => {
    const c = input.connections.find((x) => x.id === id);
    if (!c) throw new Error(`connection ${id} is not in the settings`);
    return c;
  };
  if ('webhook' in d) {
    const c = connection(d.webhook.connection);
    const signing = c.secrets?.['signing_key'];
    return {
      requests: [
        {
          title: `POST ${c.url ?? `(the URL in secret ${c.url_secret})`}`,
          headers: {
            'content-type': 'application/json',
            'x-eventbus-sync-page': `${runKey}#1`,
            ...(signing
              ? {
                  [WEBHOOK_HEADERS.timestamp]: '(the time of sending)',
                  [WEBHOOK_HEADERS.signature]: `v2=(HMAC-SHA256 with secret ${signing})`,
                }
              : {}),
          },
          body: pretty(webhookBody(sync, runKey, 1, changes)),
        },
      ],
      notSent: [],
    };
  }
  if ('files' in d) {
    const c = connection(d.files.connection);
    const format = d.files.format ?? 'jsonl';
    const path = filePaths(sync.name, input.slot, runKey, format).part(1);
    return {
      requests: [
        { title: `create gs://${c.bucket}/${path} (only if absent)`, body: fileBody(changes, format) },
      ],
      notSent: [],
    };
  }
  if ('meta_audience' in d) {
    const c = connection(d.meta_audience.connection);
    const built = metaAudiencePageRequests({
      ...(c.url ? { origin: c.url } : {}),
      audienceId: d.meta_audience.audience_id,
      runKey,
      page: 1,
      last: changes.length >= input.planned,
      planned: input.planned,
      changes,
    });
    return {
      requests: built.requests.map((r) => ({
        title: `${r.method} ${r.path}?access_token=REDACTED`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(r.body, null, 2),
      })),
      notSent: built.failed.map((f) => ({ key: f.change.key, reason: f.reason })),
    };
  }
  if ('google_ads_audience' in d) {
    const c = connection(d.google_ads_audience.connection);
    const built = customerMatchPageRequests(customerMatchTarget(d.google_ads_audience, c), changes);
    return {
      requests: built.requests.map((r) => ({
        title: `POST ${r.path}`,
        headers: { 'content-type': 'application/json', authorization: 'Bearer REDACTED' },
        body: JSON.stringify(r.body, null, 2),
      })),
      notSent: built.failed.map((f) => ({ key: f.change.key, reason: f.reason })),
    };
  }
  if ('audience' in d) {
    const built = audienceEvents(sync, changes, input.slot);
    return {
      requests: built.events.map((e) => ({
        title: `publish on ${d.audience.topic ?? 'events'} (attributes ${JSON.stringify(e.attributes)})`,
        body: JSON.stringify(e.body, null, 2),
      })),
      notSent: built.failed.map((f) => ({ key: f.change.key, reason: f.reason })),
    };
  }
  return {
    requests: syncEvents(sync, changes, input.slot).map((e) => ({
      title: `publish on ${d.topic.topic ?? 'events'} (attributes ${JSON.stringify(e.attributes)})`,
      body: JSON.stringify(e.body, null, 2),
    })),
    notSent: [],
  };
}
