/**
 * `npm run access:mutations` (scripts/access-mutations.ts) as a test: with every grant the
 * emulators enforce, every need is met, and removing any one workload binding refuses some call.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../local/settings-file.ts';

describe('local: the mutation run over the enforced grants', function () {
  this.timeout(240_000);
  it('removing each workload binding in turn refuses a call; none goes unnoticed', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'access-mutations.ts')],
      {
        cwd: REPO_ROOT,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const m = /(\d+) workload bindings: (\d+) removals refused a call, (\d+) went unnoticed/.exec(stdout);
    assert.ok(m, stdout.slice(-2000));
    assert.equal(m[3], '0');
    // Every binding of the local plan: Secret Manager's, Cloud Trace's and Cloud Monitoring's too.
    assert.ok(Number(m[2]) >= 70, `${m[2]} removals noticed`);
  });
});
