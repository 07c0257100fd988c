/**
 * Prints the policy pack's configuration a settings file implies (its region, BigQuery location
 * and, without `data_residency`, `global` for secrets):
 * `node infra/policy/config.ts environments/acme-prod.yaml > policy-config.json`.
 * Replace the lists with the organisation's own (`gcloud org-policies describe
 * gcp.resourceLocations --project <p>`) to learn before deploying what it would refuse.
 */
import { readFileSync } from 'node:fs';
import { formatErrors, parseSettings } from '../../core/settings.ts';
import { organisationConfigFor, packConfig } from './rules.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node infra/policy/config.ts <settings file>\n');
  process.exit(2);
}
const result = parseSettings(readFileSync(file, 'utf8'));
if (!result.ok) {
  process.stderr.write(`${file} is invalid:\n${formatErrors(result.errors)}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(packConfig(organisationConfigFor(result.settings)), null, 2)}\n`);
