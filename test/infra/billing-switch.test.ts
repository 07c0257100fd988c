/**
 * Switching store's and forward's billing in one `pulumi up` (issue #60, docs/deploy.md
 * "Upgrading"). Google's "already exists" cannot happen under mocks, so this checks what prevents
 * it: each plan's declared functions and services, old state against new program, stepped the
 * way Pulumi's engine steps an update (a resource new to the program is created, one whose name
 * changed is replaced by creating the new one first, one gone from the program is deleted last).
 * A creation must never claim a Cloud Run name that a resource of the old state still holds.
 */
import assert from 'node:assert/strict';
import { plan } from '../../core/plan.ts';
import type { Settings } from '../../schemas/settings.ts';
import { ofType } from './support.ts';
import { declareFunctions, example, INSTANCE, minimal, withCost } from './support-functions.ts';

const FUNCTION = 'gcp:cloudfunctionsv2/function:Function';
const SERVICE = 'gcp:cloudrunv2/service:Service';

/** A resource as the engine keys it (type and logical name) and the Cloud Run name it takes. */
interface Claim {
  readonly urn: string;
  readonly name: string;
}

/** The Cloud Run names a program's functions and services claim (a gen2 function's service is named as it). */
async function claimsOf(settings: Settings): Promise<Claim[]> {
  const { recorded } = await declareFunctions(plan(settings), settings);
  return [...ofType(recorded, FUNCTION), ...ofType(recorded, SERVICE)].map((d) => ({
    urn: `${d.type}::${d.name}`,
    name: String(d.inputs['name']),
  }));
}

/**
 * What the previous release declared for store and forward (infra/functions.ts before issue #60):
 * the same logical names as today, and the function's name as the Cloud Run name in both shapes.
 */
function previousRelease(billing: 'request' | 'instance'): Claim[] {
  return (['store', 'forward'] as const).map((f) =>
    billing === 'request'
      ? { urn: `${FUNCTION}::acme-prod-function-${f}`, name: f }
      : { urn: `${SERVICE}::acme-prod-service-${f}`, name: f },
  );
}

/**
 * The creations of one `pulumi up` from `before` to `after` that claim a name held at that
 * moment: every name of the old state is held until the deletes at the end (create before
 * delete, Pulumi's default for a replacement), and a name created once in the update is held too.
 */
function collisions(before: readonly Claim[], after: readonly Claim[]): string[] {
  const held = new Set(before.map((c) => c.name));
  const problems: string[] = [];
  for (const c of after) {
    const old = before.find((b) => b.urn === c.urn);
    if (old?.name === c.name) continue; // kept or updated in place: nothing created
    if (held.has(c.name)) problems.push(`${c.urn} creates "${c.name}", which is still held`);
    held.add(c.name);
  }
  return problems;
}

const instance = () => withCost(INSTANCE);

describe('infra: switching billing in one pulumi up (no Cloud Run name claimed twice)', () => {
  it('never lets the function and the service of a workload claim the same Cloud Run name', async () => {
    for (const base of [example, minimal]) {
      const asFunctions = await claimsOf(base());
      const asServices = await claimsOf({ ...base(), cost: { ...base().cost, ...INSTANCE } });
      for (const f of ['store', 'forward']) {
        const fn = asFunctions.filter((c) => c.urn.includes(`-${f}`)).map((c) => c.name);
        const service = asServices.filter((c) => c.urn.includes(`-${f}`)).map((c) => c.name);
        assert.deepEqual(fn, [`${f}-function`]);
        assert.deepEqual(service, [`${f}-service`]);
      }
      for (const claims of [asFunctions, asServices])
        assert.equal(new Set(claims.map((c) => c.name)).size, claims.length, 'one name, one resource');
    }
  });

  it('goes function → service → function, one pulumi up each, never creating a name still held', async () => {
    const steps = [await claimsOf(example()), await claimsOf(instance()), await claimsOf(example())];
    for (let i = 1; i < steps.length; i++)
      assert.deepEqual(collisions(steps[i - 1] ?? [], steps[i] ?? []), [], `step ${i}`);
    // The switch really replaces: the old shape's name is gone, the new one's created.
    assert.notDeepEqual(
      steps[0]?.map((c) => c.name),
      steps[1]?.map((c) => c.name),
    );
  });

  it('upgrades a stack the previous release deployed, from either shape to either shape', async () => {
    for (const from of ['request', 'instance'] as const)
      for (const [to, settings] of [
        ['function', example],
        ['service', instance],
      ] as const)
        assert.deepEqual(
          collisions(previousRelease(from), await claimsOf(settings())),
          [],
          `${from} → ${to}`,
        );
  });

  it('would have caught the previous release switching either way ("already exists")', () => {
    // The check is not vacuous: both of the previous release's shapes wanted the name `store`.
    assert.deepEqual(collisions(previousRelease('request'), previousRelease('instance')), [
      `${SERVICE}::acme-prod-service-store creates "store", which is still held`,
      `${SERVICE}::acme-prod-service-forward creates "forward", which is still held`,
    ]);
  });
});
