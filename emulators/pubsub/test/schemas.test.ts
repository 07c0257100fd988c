/**
 * Pub/Sub schemas through Google's own client: create, get and list in both views, validate,
 * revisions (commit, rollback, list, delete one), delete; a topic's schema settings checked
 * against the schemas there are, the schema attributes on the messages it gets, a deleted schema
 * named `_deleted-schema_`; and all of it after `kill -9`.
 */
import assert from 'node:assert/strict';
import { Encodings, type PubSub, SchemaTypes, SchemaViews } from '@google-cloud/pubsub';
import {
  afterKill9,
  childrenOnTempDir,
  PROJECT,
  type Running,
  rest,
  start,
  until,
} from './support/harness.ts';

const P = `projects/${PROJECT}`;
const AVRO = JSON.stringify({
  type: 'record',
  name: 'Province',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'post_abbr', type: 'string' },
  ],
});
const PROTO = 'syntax = "proto3";\nmessage Province {\n  string name = 1;\n  string post_abbr = 2;\n}\n';

async function revisionsOf(client: PubSub, name: string): Promise<string[]> {
  const schemas = await client.getSchemaClient();
  const [revs] = await schemas.listSchemaRevisions({ name });
  return revs.map((r) => r.revisionId as string);
}

describe('pubsub emulator: schemas', () => {
  let r: Running;
  before(async () => {
    r = await start();
  });
  after(() => r.stop());

  it('creates, gets (FULL and BASIC views), lists and deletes a schema, and refuses a second of the name', async () => {
    const schema = await r.client.createSchema('prov-avro', SchemaTypes.Avro, AVRO);
    const full = await schema.get(SchemaViews.Full);
    assert.equal(full.name, `${P}/schemas/prov-avro`);
    assert.equal(full.type, 'AVRO');
    assert.equal(full.definition, AVRO);
    assert.match(String(full.revisionId), /^[0-9a-f]{8}$/);
    assert.equal((await schema.get(SchemaViews.Basic)).definition, '');
    const listed = [];
    for await (const s of r.client.listSchemas()) listed.push(s);
    assert.deepEqual(
      listed.map((s) => [s.name, s.definition]),
      [[`${P}/schemas/prov-avro`, '']],
    );
    await assert.rejects(r.client.createSchema('prov-avro', SchemaTypes.Avro, AVRO), { code: 6 });
    await schema.delete();
    await assert.rejects(schema.get(), { code: 5 });
  });

  it('validates definitions: refuses what is not Avro or declares no single message', async () => {
    await r.client.validateSchema({ type: SchemaTypes.Avro, definition: AVRO });
    await r.client.validateSchema({ type: SchemaTypes.ProtocolBuffer, definition: PROTO });
    for (const [type, definition] of [
      [SchemaTypes.Avro, '{"not_actually":"avro"}'],
      [SchemaTypes.Avro, 'woohoo i am a schema, no really'],
      [SchemaTypes.ProtocolBuffer, 'syntax = "proto3";'],
    ] as const)
      await assert.rejects(r.client.validateSchema({ type, definition }), { code: 3 });
    await assert.rejects(r.client.createSchema('bad', SchemaTypes.Avro, '{}'), { code: 3 });
  });

  it('commits, rolls back, lists and deletes revisions, newest first', async () => {
    const name = `${P}/schemas/prov-rev`;
    await r.client.createSchema('prov-rev', SchemaTypes.ProtocolBuffer, PROTO);
    const schemas = await r.client.getSchemaClient();
    const [first] = await revisionsOf(r.client, name);
    const [second] = await schemas.commitSchema({
      name,
      schema: { name, type: 'PROTOCOL_BUFFER', definition: `${PROTO}// second\n` },
    });
    const [rolled] = await schemas.rollbackSchema({ name, revisionId: first as string });
    assert.equal(rolled.definition, PROTO);
    assert.deepEqual(await revisionsOf(r.client, name), [rolled.revisionId, second.revisionId, first]);
    const [one] = await schemas.getSchema({ name: `${name}@${second.revisionId}` });
    assert.equal(one.definition, `${PROTO}// second\n`);
    await schemas.deleteSchemaRevision({ name: `${name}@${second.revisionId}` });
    assert.deepEqual(await revisionsOf(r.client, name), [rolled.revisionId, first]);
    await assert.rejects(schemas.getSchema({ name: `${name}@${second.revisionId}` }), { code: 5 });
  });

  it('checks a topic schema settings, stamps its messages with the schema, and names a deleted schema', async () => {
    await assert.rejects(
      r.client.createTopic({
        name: 'no-schema-t',
        schemaSettings: { schema: `${P}/schemas/none`, encoding: 'JSON' },
      }),
      { code: 5 },
    );
    const schema = await r.client.createSchema('prov-topic', SchemaTypes.Avro, AVRO);
    const [topic] = await r.client.createTopic({
      name: 'schema-t',
      schemaSettings: { schema: `${P}/schemas/prov-topic`, encoding: Encodings.Json },
    });
    assert.equal(topic.metadata?.schemaSettings?.encoding, 'JSON');
    const [sub] = await topic.createSubscription('schema-s');
    await topic.publishMessage({ data: Buffer.from(JSON.stringify({ name: 'Alberta', post_abbr: 'AB' })) });
    const got = await new Promise<Record<string, string>>((resolve, reject) => {
      sub.once('message', (m) => {
        m.ack();
        resolve(m.attributes);
      });
      sub.once('error', reject);
    });
    await sub.close();
    const { revisionId } = await schema.get();
    assert.deepEqual(got, {
      googclient_schemaname: `${P}/schemas/prov-topic`,
      googclient_schemaencoding: 'JSON',
      googclient_schemarevisionid: revisionId,
    });
    await schema.delete();
    const [meta] = await topic.getMetadata();
    assert.equal(meta.schemaSettings?.schema, '_deleted-schema_');
  });

  it('lists schemas over REST and says the other schema calls are served over gRPC only', async () => {
    await r.client.createSchema('prov-rest', SchemaTypes.Avro, AVRO);
    const listed = await rest(r.emulator.url, 'GET', `/v1/${P}/schemas`);
    assert.ok(
      (listed.body['schemas'] as { name: string }[]).some((s) => s.name === `${P}/schemas/prov-rest`),
    );
    const made = await rest(r.emulator.url, 'POST', `/v1/${P}/schemas?schemaId=s`, {
      type: 'AVRO',
      definition: AVRO,
    });
    assert.equal(made.status, 501);
    assert.match(JSON.stringify(made.body), /served over gRPC only/);
  });
});

describe('pubsub emulator: schemas survive kill -9', () => {
  const { dataDir, children } = childrenOnTempDir();

  it('replays schemas, their revisions, a topic schema settings and a deletion after a crash', async () => {
    const name = `${P}/schemas/dur-schema`;
    let revisions: string[] = [];
    const { client: again } = await afterKill9(dataDir, children, async (client) => {
      await client.createSchema('dur-schema', SchemaTypes.ProtocolBuffer, PROTO);
      const schemas = await client.getSchemaClient();
      await schemas.commitSchema({
        name,
        schema: { name, type: 'PROTOCOL_BUFFER', definition: `${PROTO}// 2\n` },
      });
      revisions = await revisionsOf(client, name);
      await client.createTopic({
        name: 'dur-schema-t',
        schemaSettings: { schema: name, encoding: Encodings.Binary },
      });
      await client.createSchema('dur-gone', SchemaTypes.Avro, AVRO);
      await client.schema('dur-gone').delete();
    });
    assert.deepEqual(await revisionsOf(again, name), revisions);
    const [meta] = await again.topic('dur-schema-t').getMetadata();
    assert.deepEqual([meta.schemaSettings?.schema, meta.schemaSettings?.encoding], [name, 'BINARY']);
    await assert.rejects(again.schema('dur-gone').get(), { code: 5 });
    await until(async () => (await again.schema('dur-schema').get()).definition === `${PROTO}// 2\n`);
    await again.close();
  });
});
