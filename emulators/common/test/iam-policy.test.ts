/** IAM evaluation as Google does it: ancestors, roles' permissions, conditions, list on the bucket. */
import assert from 'node:assert/strict';
import { allowed, conditionHolds, type IamPolicy } from '../iam-policy.ts';

const SA = 'serviceAccount:eventbus-schedule@p.iam.gserviceaccount.com';
const OTHER = 'serviceAccount:eventbus-studio@p.iam.gserviceaccount.com';
const BUCKET = 'projects/_/buckets/reg';
const prefixed = (prefix: string) => `resource.name.startsWith("${BUCKET}/objects/${prefix}")`;

describe('IAM evaluation', () => {
  it('grants a role’s permissions on the resource and below it, to its members only', () => {
    const policies: IamPolicy[] = [
      { resource: 'projects/p/datasets/d', bindings: [{ role: 'roles/bigquery.dataEditor', members: [SA] }] },
    ];
    const insert = { principal: SA, permission: 'bigquery.tables.updateData' };
    assert.equal(allowed(policies, { ...insert, resource: 'projects/p/datasets/d/tables/t' }), true);
    assert.equal(allowed(policies, { ...insert, resource: 'projects/p/datasets/other/tables/t' }), false);
    assert.equal(
      allowed(policies, { ...insert, principal: OTHER, resource: 'projects/p/datasets/d/tables/t' }),
      false,
    );
    // Data Editor cannot set a column's policy tag.
    assert.equal(
      allowed(policies, {
        principal: SA,
        permission: 'bigquery.tables.setCategory',
        resource: 'projects/p/datasets/d/tables/t',
      }),
      false,
    );
  });

  it('holds a prefix grant to its objects, and does not let it list unless the condition names the list prefix', () => {
    const objectsOnly: IamPolicy[] = [
      {
        resource: BUCKET,
        bindings: [
          {
            role: 'roles/storage.objectUser',
            members: [SA],
            condition: { expression: prefixed('replays/') },
          },
        ],
      },
    ];
    const get = { principal: SA, permission: 'storage.objects.get' };
    assert.equal(allowed(objectsOnly, { ...get, resource: `${BUCKET}/objects/replays/a.json` }), true);
    assert.equal(allowed(objectsOnly, { ...get, resource: `${BUCKET}/objects/Alert/a.json` }), false);
    const list = {
      principal: SA,
      permission: 'storage.objects.list',
      resource: BUCKET,
      listPrefix: 'replays/',
    };
    assert.equal(allowed(objectsOnly, list), false, 'a list is checked on the bucket');
    const withList: IamPolicy[] = [
      {
        resource: BUCKET,
        bindings: [
          {
            role: 'roles/storage.objectUser',
            members: [SA],
            condition: {
              expression: `${prefixed('replays/')} || (resource.name == "${BUCKET}" && api.getAttribute("storage.googleapis.com/objectListPrefix", "").startsWith("replays/"))`,
            },
          },
        ],
      },
    ];
    assert.equal(allowed(withList, list), true);
    assert.equal(allowed(withList, { ...list, listPrefix: 'Alert/' }), false);
    assert.equal(
      allowed(withList, { principal: SA, permission: 'storage.objects.list', resource: BUCKET }),
      false,
      'a list of the whole bucket',
    );
  });

  it('denies on a condition it cannot read, rather than guessing', () => {
    const req = { principal: SA, permission: 'x', resource: `${BUCKET}/objects/a` };
    assert.equal(conditionHolds('request.time < timestamp("2030-01-01T00:00:00Z")', req), false);
    assert.equal(conditionHolds('resource.name.startsWith(', req), false);
    assert.equal(
      conditionHolds(`resource.name == "${BUCKET}/objects/a" && resource.type == "x"`, req),
      false,
    );
    assert.equal(conditionHolds(`resource.name == "${BUCKET}/objects/a" || resource.type == "x"`, req), true);
  });

  it('lets project-level bindings cover the project’s topics, tables and buckets', () => {
    const policies: IamPolicy[] = [
      { resource: 'projects/p', bindings: [{ role: 'roles/bigquery.jobUser', members: [SA] }] },
    ];
    assert.equal(
      allowed(policies, { principal: SA, permission: 'bigquery.jobs.create', resource: 'projects/p' }),
      true,
    );
    assert.equal(
      allowed(policies, { principal: OTHER, permission: 'bigquery.jobs.create', resource: 'projects/p' }),
      false,
    );
  });

  it('Bigtable: the four roles bundle metadata, reads, writes and table admin apart, on an instance', () => {
    const INSTANCE = 'projects/p/instances/i';
    const TABLE = `${INSTANCE}/tables/t`;
    const roles = ['viewer', 'reader', 'user', 'admin'];
    const members = roles.map((r) => `serviceAccount:${r}@p.iam.gserviceaccount.com`);
    const policies: IamPolicy[] = [
      {
        resource: INSTANCE,
        bindings: roles.map((r, i) => ({ role: `roles/bigtable.${r}`, members: [members[i] as string] })),
      },
    ];
    const may = (permission: string, resource = TABLE) =>
      members.map((principal) => allowed(policies, { principal, permission, resource }));
    assert.deepEqual(may('bigtable.tables.get'), [true, true, true, true]);
    assert.deepEqual(may('bigtable.tables.readRows'), [false, true, true, true]);
    assert.deepEqual(may('bigtable.tables.sampleRowKeys'), [false, true, true, true]);
    assert.deepEqual(may('bigtable.tables.mutateRows'), [false, false, true, true]);
    assert.deepEqual(may('bigtable.tables.create', INSTANCE), [false, false, false, true]);
    assert.deepEqual(may('bigtable.tables.delete'), [false, false, false, true]);
    // A grant on the instance reaches none of another instance's tables.
    assert.deepEqual(may('bigtable.tables.readRows', 'projects/p/instances/j/tables/t'), [
      false,
      false,
      false,
      false,
    ]);
  });
});
