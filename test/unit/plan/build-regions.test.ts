/** Cloud Build regions: a region off the dated list of regions known to build is warned about. */
import assert from 'node:assert/strict';
import { plan } from '../../../core/plan.ts';
import {
  BUILD_REGIONS_REVIEWED,
  buildRegionWarnings,
  KNOWN_BUILD_REGIONS,
} from '../../../core/plan-warnings/build-regions.ts';

const planIn = (region: string) => plan({ name: 'r', project: 'r-project', region });

describe('plan: Cloud Build regions', () => {
  it('says nothing for a region known to build (europe-west1, us-central1)', () => {
    for (const region of ['europe-west1', 'us-central1'])
      assert.deepEqual(buildRegionWarnings(planIn(region)), []);
  });

  it('warns for europe-west3 (refused for new projects in public reports), naming the list and its date', () => {
    const [warning, ...rest] = buildRegionWarnings(planIn('europe-west3'));
    assert.deepEqual(rest, []);
    assert.match(warning ?? '', /^region europe-west3: .*Cloud Build cannot run builds in this region/);
    assert.ok(warning?.includes(BUILD_REGIONS_REVIEWED));
    for (const r of KNOWN_BUILD_REGIONS) assert.ok(warning?.includes(r));
  });
});
