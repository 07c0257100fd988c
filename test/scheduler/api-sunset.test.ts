/**
 * The scheduler's daily API-sunset warning (issue #62, "API versions in one place"): while a
 * configured destination's platform version is within 60 days of its sunset, the job is scheduled
 * daily and logs one WARNING line per such destination with the `api_sunset` field the alert's
 * log-based metric counts; otherwise it is not scheduled at all.
 */
import assert from 'node:assert/strict';
import { META_API } from '../../core/platforms/meta/api-version.ts';
import { apiSunsetJob } from '../../functions/schedule/api-sunset.ts';
import type { ChunkContext } from '../../functions/schedule/runner.ts';
import type { Settings } from '../../schemas/settings.ts';

const DAY = 86_400_000;

describe('scheduler: the API sunset warning', () => {
  const settings: Settings = {
    name: 's',
    project: 's-project',
    region: 'europe-west1',
    destinations: [
      {
        id: 'meta',
        type: 'meta_capi',
        config: { pixel_id: '123456789012345' },
        secrets: { access_token: 'META_TOKEN' },
      },
    ],
  };
  const sunset = Date.parse(`${META_API.sunset}T00:00:00Z`);
  const run = async (now: Date) => {
    const lines: Record<string, unknown>[] = [];
    const job = apiSunsetJob({ settings, log: (e) => lines.push({ ...e }) });
    const scheduled = await job.scheduled(now);
    if (scheduled.length > 0) await job.chunk({ now } as ChunkContext);
    return { scheduled, lines };
  };

  it('logs daily, with the field the alert counts, from 60 days before the sunset', async () => {
    const near = await run(new Date(sunset - 59 * DAY));
    assert.deepEqual(near.scheduled, [{ kind: 'ApiSunset', name: 'platforms', schedule: { every: '1d' } }]);
    assert.equal(near.lines.length, 1);
    assert.equal(near.lines[0]?.['severity'], 'WARNING');
    assert.deepEqual(near.lines[0]?.['api_sunset'], {
      destination: 'meta',
      platform: 'meta_capi',
      version: META_API.version,
      sunset: META_API.sunset,
      days: 59,
    });
    const far = await run(new Date(sunset - 61 * DAY));
    assert.deepEqual(far.scheduled, []);
    assert.deepEqual(far.lines, []);
  });
});
