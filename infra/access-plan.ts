/**
 * Prints the IAM policies `pulumi up` would bind for a settings file, and the policy tags it puts
 * on columns with their masking rules, as JSON on stdout (`{policies, policyTags}`): the program
 * (infra/environment.ts) declared offline under Pulumi's mocks (infra/offline.ts), each
 * `*IAMMember` turned into a policy on its resource's full name (infra/access-policies.ts). Run
 * as its own process by local/access-file.ts: the mocks replace Pulumi's runtime for the whole
 * process, which must not be the supervisor's.
 *
 *   node infra/access-plan.ts <settings file>
 */
import { readFileSync } from 'node:fs';
import { parseSettings } from '../core/settings.ts';
import { isBinding, policiesOf, policyTagsOf } from './access-policies.ts';
import { loadStackConfig } from './config.ts';
import { declareEnvironment } from './environment.ts';
import { bundlesFor, declare } from './offline.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node infra/access-plan.ts <settings file>\n');
  process.exit(2);
}
const parsed = parseSettings(readFileSync(file, 'utf8'));
if (!parsed.ok) {
  process.stderr.write(`${file}: invalid settings\n`);
  process.exit(2);
}
const { project, region } = parsed.settings;
const config = loadStackConfig({ project, region, settingsFile: file });
// With the settings' catalogue destinations, forward-catalog's bundle as the build would make it.
const recorded = await declare(() => declareEnvironment(config, bundlesFor(config.settings)));
process.stdout.write(
  JSON.stringify({
    policies: policiesOf(recorded.resources.filter(isBinding), project),
    policyTags: policyTagsOf(recorded.resources),
  }),
);
