#!/usr/bin/env node
/**
 * `node scripts/stack-state.ts <commit> [settings file]`: what a stack deployed by the program at
 * `<commit>` holds, written to test/fixtures/stack-states/<commit>.json for the upgrade tests
 * (test/infra/upgrade-from-state.test.ts). The program at that commit runs under Pulumi's mocks in
 * a throwaway worktree of this clone (this checkout's node_modules linked in), exactly as that
 * commit's own tests ran it, and each declared resource is kept as the engine's checkpoint would
 * list it for `pulumi:pulumi:readStackResourceOutputs`: its URN, type and the scalar outputs that
 * name it (name, location, ids). The settings file is the commit's own (`environments/example.yaml`
 * unless named), kept in the fixture beside the resources, so the fixture is "that release, deployed
 * with its example" and the upgrade declares the new program with the same settings.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { NAMING_KEYS } from '../infra/offline.ts';
import { ROOT } from './commits.ts';

const DRIVER = `
import { writeFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { BUNDLES, declare } from './support.ts';

const [out, settingsFile] = process.argv.slice(2);
const buildRoot = mkdtempSync(join(tmpdir(), 'eventbus-stack-state-'));
mkdirSync(join(buildRoot, 'dist'));
writeFileSync(join(buildRoot, 'dist', 'bundles.json'), JSON.stringify(BUNDLES));
const recorded = await declare(async () => {
  pulumi.runtime.setAllConfig({
    'gcp:project': 'acme-outdoor-prod',
    'gcp:region': 'europe-west1',
    'eventbus:settingsFile': settingsFile,
    'eventbus:buildRoot': buildRoot,
    // Secret stack config later programs ask for (a program that does not ignores them).
    'eventbus:sessionSalt': 'salt-of-the-recording',
    'eventbus:edgeSecret': 'edge-secret-of-the-recording',
  });
  const program = await import('../../infra/index.ts');
  await new Promise((r) => pulumi.output(program.gatewayUrl).apply(r));
});
writeFileSync(out, JSON.stringify(recorded.resources));
`;

interface Declared {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
}

function main(): void {
  const [commitArg, settingsArg] = process.argv.slice(2);
  if (!commitArg) {
    console.error('usage: node scripts/stack-state.ts <commit> [settings file]');
    process.exit(2);
  }
  const commit = execFileSync('git', ['rev-parse', `${commitArg}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const settingsFile = settingsArg ?? 'environments/example.yaml';
  const dir = mkdtempSync(join(tmpdir(), 'eventbus-old-program-'));
  const tree = join(dir, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: ROOT, stdio: 'ignore' });
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    writeFileSync(join(tree, 'test', 'infra', 'record-state.ts'), DRIVER);
    const raw = join(dir, 'resources.json');
    execFileSync(process.execPath, [join(tree, 'test', 'infra', 'record-state.ts'), raw, settingsFile], {
      cwd: tree,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const declared = JSON.parse(readFileSync(raw, 'utf8')) as Declared[];
    const settingsText = readFileSync(join(tree, settingsFile), 'utf8');
    const resources = declared.map((r) => ({
      urn: `urn:pulumi:test::eventbus::${r.type}::${r.name}`,
      type: r.type,
      outputs: Object.fromEntries(
        NAMING_KEYS.flatMap((k) => (typeof r.inputs[k] === 'string' ? [[k, r.inputs[k]]] : [])),
      ),
    }));
    const target = resolve(ROOT, 'test', 'fixtures', 'stack-states');
    mkdirSync(target, { recursive: true });
    const file = join(target, `${commit.slice(0, 8)}.json`);
    const record = { commit, settingsFile, settingsText, recordedBy: 'scripts/stack-state.ts', resources };
    writeFileSync(file, `${JSON.stringify(record, null, 1)}\n`);
    console.log(`${file}: ${resources.length} resources`);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
