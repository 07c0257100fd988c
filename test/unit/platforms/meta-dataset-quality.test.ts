/**
 * Meta's Dataset Quality API (core/platforms/meta/dataset-quality.ts): the request a destination
 * with `config.diagnostics: true` makes, and its answers — in the shapes Meta's page documents —
 * read into metric rows that keep numbers, key kinds and Meta's wording, never an identifier.
 */
import assert from 'node:assert/strict';
import {
  DATASET_QUALITY_FIELDS,
  datasetQualityUrl,
  diagnosticsEnabled,
  diagnosticsSecretRoles,
  readDatasetQuality,
} from '../../../core/platforms/meta/dataset-quality.ts';
import { checkSettings } from '../../../core/settings.ts';
import type { Destination } from '../../../schemas/settings.ts';

const meta = (config: Destination['config'], over: Partial<Destination> = {}): Destination => ({
  id: 'meta',
  type: 'meta_capi',
  config: { pixel_id: '123456789012345', ...config },
  secrets: { access_token: 'META_TOKEN' },
  ...over,
});

describe('platforms: Meta dataset quality (the diagnostics request and its answer)', () => {
  it('asks GET /{version}/dataset_quality for the pixel, web fields, the token in the query', () => {
    const url = new URL(datasetQualityUrl(meta({ diagnostics: true }), 'EAAtoken'));
    assert.equal(`${url.origin}${url.pathname}`, 'https://graph.facebook.com/v25.0/dataset_quality');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      dataset_id: '123456789012345',
      fields: DATASET_QUALITY_FIELDS,
      access_token: 'EAAtoken',
    });
    assert.match(DATASET_QUALITY_FIELDS, /^web\{event_name,event_match_quality\{/);
    const pinned = new URL(
      datasetQualityUrl(
        meta({ diagnostics: true, api_version: 'v24.0' }, { base_url: 'http://127.0.0.1:9/' }),
        't',
      ),
    );
    assert.equal(`${pinned.origin}${pinned.pathname}`, 'http://127.0.0.1:9/v24.0/dataset_quality');
  });

  it('is on only for diagnostics: true on an enabled meta_capi destination; a string is refused by the settings check', () => {
    assert.equal(diagnosticsEnabled(meta({ diagnostics: true })), true);
    assert.equal(diagnosticsEnabled(meta({})), false);
    assert.equal(diagnosticsEnabled(meta({ diagnostics: 'true' })), false);
    assert.deepEqual(diagnosticsSecretRoles(meta({ diagnostics: true })), ['access_token']);
    assert.deepEqual(diagnosticsSecretRoles(meta({ diagnostics: true }, { enabled: false })), []);
    const base = { name: 'd', project: 'diagnostics-test', region: 'europe-west1' };
    assert.equal(checkSettings({ ...base, destinations: [meta({ diagnostics: true })] }).ok, true);
    const refused = checkSettings({ ...base, destinations: [meta({ diagnostics: 'true' })] });
    assert.equal(refused.ok, false);
    assert.ok(
      !refused.ok && refused.errors.some((e) => e.field === 'destinations[0].config.diagnostics'),
      JSON.stringify(refused),
    );
  });

  it("reads Meta's documented answer into one row per event and metric", () => {
    const metrics = readDatasetQuality({
      web: [
        {
          event_name: 'Purchase',
          event_match_quality: {
            composite_score: 7.2,
            match_key_feedback: [
              { identifier: 'email', coverage: { percentage: 100 } },
              { identifier: 'ip_address', coverage: { percentage: 99.9 } },
            ],
            diagnostics: [
              {
                name: 'Server sending mismatched IP addresses',
                description: 'Your server is sending client IP addresses that do not match…',
                solution: 'In your server payload, send the client_ip_address…',
                percentage: 61.5,
                affected_event_count: 19567,
                total_event_count: 31830,
              },
            ],
          },
          event_coverage: { percentage: 34.1, goal_percentage: 75, description: 'The percentage…' },
          dedupe_key_feedback: [
            {
              dedupe_key: 'event_id',
              browser_events_with_dedupe_key: { percentage: 100 },
              server_events_with_dedupe_key: { percentage: 100 },
              overall_browser_coverage_from_dedupe_key: { percentage: 14.8 },
            },
            {
              dedupe_key: 'external_id',
              browser_events_with_dedupe_key: { percentage: 100 },
              server_events_with_dedupe_key: { percentage: 100 },
              overall_browser_coverage_from_dedupe_key: { percentage: 15.96 },
            },
          ],
          data_freshness: { upload_frequency: 'hourly', description: 'The average frequency…' },
          acr: { percentage: 37.9, description: 'In the last 7 days…' },
          event_potential_aly_acr_increase: { percentage: 32.9 },
        },
        // The field table's spelling of the dedup feedback is read too; a repeated event counts once.
        {
          event_name: 'Lead',
          dedup_key_feedback: [
            { dedup_key: 'fbp', overall_browser_coverage_from_dedupe_key: { percentage: 5 } },
          ],
        },
        { event_name: 'Purchase', event_match_quality: { composite_score: 1 } },
        { event_match_quality: { composite_score: 3 } },
      ],
    });
    assert.deepEqual(
      metrics?.map((m) => [m.event_name, m.metric, m.value]),
      [
        ['Purchase', 'event_match_quality', 7.2],
        ['Purchase', 'match_key_coverage.email', 100],
        ['Purchase', 'match_key_coverage.ip_address', 99.9],
        ['Purchase', 'emq_diagnostics', 1],
        ['Purchase', 'event_coverage', 34.1],
        ['Purchase', 'dedup_rate', 30.76],
        ['Purchase', 'data_freshness', null],
        ['Purchase', 'acr', 37.9],
        ['Purchase', 'acr_potential_increase', 32.9],
        ['Lead', 'dedup_rate', 5],
      ],
    );
    const detail = (name: string) => metrics?.find((m) => m.metric === name)?.detail;
    assert.deepEqual(detail('event_match_quality'), { match_keys: ['email', 'ip_address'] });
    assert.deepEqual(detail('event_coverage'), { goal_percentage: 75 });
    assert.deepEqual(detail('data_freshness'), { upload_frequency: 'hourly' });
    // Meta's name for a diagnostic and its counts; not its description or solution (long prose).
    assert.deepEqual(detail('emq_diagnostics'), {
      diagnostics: [
        {
          name: 'Server sending mismatched IP addresses',
          percentage: 61.5,
          affected_event_count: 19567,
          total_event_count: 31830,
        },
      ],
    });
  });

  it('answers undefined for a body without web, and keeps no key name that is not a plain word', () => {
    assert.equal(readDatasetQuality({ error: { code: 100 } }), undefined);
    assert.equal(readDatasetQuality('nope'), undefined);
    const odd = readDatasetQuality({
      web: [
        {
          event_name: 'Purchase',
          event_match_quality: {
            composite_score: 5,
            match_key_feedback: [{ identifier: 'jane@example.com', coverage: { percentage: 1 } }],
          },
        },
      ],
    });
    assert.deepEqual(
      odd?.map((m) => [m.metric, m.detail]),
      [['event_match_quality', { match_keys: [] }]],
    );
  });
});
