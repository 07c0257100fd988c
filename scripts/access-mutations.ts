/**
 * `npm run access:mutations`: the mutation run over the grants the emulators enforce. It starts
 * the local plan's emulators with IAM on, checks that every access need is met through them
 * (local/access-probe.ts: one real call per need, as its workload), then removes each workload
 * binding from the access file in turn and runs the same calls again: a removal that no call
 * notices is a grant the code does not use (remove it from infra/) or a need
 * core/access/needs.ts does not list yet. Exits 1 when the baseline fails or a removal goes
 * unnoticed.
 *
 *   npm run access:mutations                       # environments/local.yaml
 *   npm run access:mutations -- --env example      # another settings file
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { accessNeeds, WORKLOADS, workloadMember } from '../core/access/needs.ts';
import { plan as planOf } from '../core/plan.ts';
import type { IamPolicy } from '../emulators/common/iam-policy.ts';
import { ROLES } from '../emulators/common/iam-roles.ts';
import { localToken, readAccessFile, writeAccessFile } from '../local/access-file.ts';
import { endpointsOf, probeNeeds, startEmulators, unmetLines } from '../local/access-probe.ts';
import { environmentFile, readSettingsFile } from '../local/settings-file.ts';

/**
 * False for a predefined role none of whose permissions a local stand-in answers (Data Catalog's,
 * Cloud Run's, IAP's). The emulators answer Pub/Sub, BigQuery, Cloud Storage, Firestore and Secret
 * Manager; the receiver answers Cloud Trace and Cloud Monitoring (the Telemetry API's OTLP
 * endpoints, Cloud Trace's v1 reads).
 */
const emulated = (role: string): boolean =>
  ROLES[role]?.permissions.some((p) =>
    /^(pubsub|bigquery|storage|datastore|secretmanager|cloudtrace|monitoring)\./.test(p),
  ) ?? true;

const { values } = parseArgs({ options: { env: { type: 'string', default: 'local' } } });
const settings = readSettingsFile(environmentFile(values.env as string));
const dataDir = mkdtempSync(join(tmpdir(), 'access-mutations-'));
const env = await startEmulators(settings, dataDir);
let exit = 0;
try {
  const at = endpointsOf(env);
  const needs = accessNeeds(planOf(settings), settings);
  const probe = async () =>
    unmetLines(await probeNeeds(needs, at, (who) => localToken(dataDir, who, settings.project)));
  const full = readAccessFile(dataDir)?.policies ?? [];
  const baseline = await probe();
  if (baseline.length > 0) {
    process.stdout.write(
      `baseline: ${baseline.length} needs unmet with every grant in place:\n${baseline.join('\n')}\n`,
    );
    exit = 1;
  } else {
    const members = new Set(WORKLOADS.map((w) => workloadMember(w, settings.project)));
    // Each (policy, binding, member) of a workload: removed alone, as one IAMMember resource is.
    const targets = full.flatMap((p, pi) =>
      p.bindings.flatMap((b, bi) => b.members.filter((m) => members.has(m)).map((m) => ({ pi, bi, m }))),
    );
    const unnoticed: string[] = [];
    let noticed = 0;
    let outsideEmulators = 0;
    for (const t of targets) {
      const policy = full[t.pi] as IamPolicy;
      const binding = policy.bindings[t.bi] as IamPolicy['bindings'][number];
      const label = `${t.m.replace(/^serviceAccount:|@.*$/g, '')} ${binding.role} on ${policy.resource}${binding.condition ? ` if ${binding.condition.expression}` : ''}`;
      if (
        !/^projects\/[^/]+\/(topics|subscriptions|datasets|secrets)|^projects\/_\/buckets|^projects\/[^/]+$/.test(
          policy.resource,
        ) ||
        !emulated(binding.role)
      ) {
        outsideEmulators += 1;
        continue;
      }
      const mutated = full.map((p, pi) =>
        pi !== t.pi
          ? p
          : {
              ...p,
              bindings: p.bindings.map((b, bi) =>
                bi !== t.bi ? b : { ...b, members: b.members.filter((m) => m !== t.m) },
              ),
            },
      );
      writeAccessFile(dataDir, mutated);
      await sleep(250); // the emulators look at the file's time at most every 200 ms
      const failed = await probe();
      if (failed.length > 0) {
        noticed += 1;
        process.stdout.write(`removed ${label}: ${failed.length} call(s) refused, e.g. ${failed[0]}\n`);
      } else {
        unnoticed.push(label);
      }
    }
    writeAccessFile(dataDir, full);
    process.stdout.write(
      `\n${targets.length} workload bindings: ${noticed} removals refused a call, ${unnoticed.length} went unnoticed, ${outsideEmulators} on services with no local stand-in (Data Catalog, Cloud Run, IAP: checked offline by test/infra/access-mutations.test.ts)\n`,
    );
    if (unnoticed.length > 0) {
      process.stdout.write(`unnoticed:\n${unnoticed.map((u) => `  ${u}`).join('\n')}\n`);
      exit = 1;
    }
  }
} finally {
  await env.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exit);
