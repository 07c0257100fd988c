/**
 * Actions with a client of their own (docs/security.md, "Actions with a client of their own"): a
 * catalogue action whose code connects by itself (Kafka's protocol through kafkajs, SFTP, the AWS
 * SDK's HTTPS client) would go around the egress gate, to whatever host its settings name. The
 * catalogue marks each (scripts/segment-transport.ts, read from the package's code when the
 * catalogue is generated), the settings check refuses it, and forward-catalog's driver never runs
 * it: a Kafka destination whose broker is a listener on loopback gets no connection, and its
 * delivery's outcome says why.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { segmentActionDriver } from '../../adapters/segment-actions/driver.ts';
import type { StoredEvent } from '../../core/event.ts';
import { catalogList } from '../../core/platforms/segment-action/catalog.ts';
import { segmentActionProblems } from '../../core/platforms/segment-action/check.ts';
import type { Destination } from '../../schemas/settings.ts';
import { actionTransport } from '../../scripts/segment-transport.ts';

const kafka = (brokers: string) =>
  ({
    id: 'events-kafka',
    type: 'segment_action',
    destination: 'kafka',
    config: { clientId: 'eventbus', brokers, mechanism: 'plain', ssl_enabled: false },
    secrets: { username: 'KAFKA_USER', password: 'KAFKA_PASSWORD' },
    actions: [{ action: 'send', mapping: { topic: 'orders', payload: { '@path': '$.' } } }],
  }) as unknown as Destination;

describe('catalogue actions with a client of their own (the egress gate’s last way around)', function () {
  this.timeout(30_000);

  it('marks every action whose code reaches a client of its own, and only those', () => {
    const marked = catalogList().flatMap((d) =>
      d.actions.filter((a) => a.transport !== undefined).map((a) => `${d.slug} ${a.key} ${a.transport}`),
    );
    assert.deepEqual(marked, [
      'amazon-eventbridge send @aws-sdk/client-eventbridge',
      'amazon-eventbridge sendV2 @aws-sdk/client-eventbridge',
      'kafka send kafkajs',
      'liveramp-audiences audienceEnteredSFTP ssh2-sftp-client',
      'singlestore send kafkajs',
    ]);
  });

  describe('the reading of a package’s code, planted', () => {
    let dist: string;
    before(() => {
      dist = mkdtempSync(join(tmpdir(), 'own-transport-'));
      const file = (path: string, text: string) => {
        mkdirSync(join(dist, path, '..'), { recursive: true });
        writeFileSync(join(dist, path), text);
      };
      file(
        'destinations/d/viaHelper/index.js',
        'require("../lib/client");\nrequire("@segment/actions-core");\n',
      );
      file('destinations/d/lib/client.js', 'const k = require("kafkajs");\n');
      file('destinations/d/socket/index.js', 'const net = require("node:net");\n');
      file('destinations/d/sdk/index.js', 'require("./deep");\n');
      file('destinations/d/sdk/deep/index.js', 'require("@aws-sdk/client-s3");\n');
      file('destinations/d/plain/index.js', 'require("@segment/actions-core");\nrequire("./own");\n');
      file('destinations/d/plain/own.js', 'require("dayjs");\n');
      file('destinations/d/cycle/index.js', 'require("./a");\n');
      file('destinations/d/cycle/a.js', 'require("./index");\n');
    });
    after(() => rmSync(dist, { recursive: true, force: true }));

    it('follows the files an action requires, however deep, to the client they name', () => {
      assert.equal(actionTransport(dist, 'd', 'viaHelper'), 'kafkajs');
      assert.equal(actionTransport(dist, 'd', 'socket'), 'net');
      assert.equal(actionTransport(dist, 'd', 'sdk'), '@aws-sdk/client-s3');
    });

    it('marks nothing that sends through the request client alone, and ends on a cycle', () => {
      assert.equal(actionTransport(dist, 'd', 'plain'), undefined);
      assert.equal(actionTransport(dist, 'd', 'cycle'), undefined);
    });
  });

  it('is refused by the settings check, with the reason', () => {
    assert.deepEqual(segmentActionProblems(kafka('10.0.0.5:9092')), [
      'destination.actions[0].action: kafka send sends over a client of its own (kafkajs), not through the egress gate every call out passes: not offered here (docs/security.md#actions-with-a-client-of-their-own)',
    ]);
  });

  describe('forward-catalog’s driver', () => {
    let server: Server;
    let port = 0;
    const connections: string[] = [];
    before(async () => {
      server = createServer((socket) => {
        connections.push(String(socket.remoteAddress));
        socket.destroy();
      });
      await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
      port = (server.address() as { port: number }).port;
    });
    after(() => new Promise<void>((done) => server.close(() => done())));

    it('never runs it: no connection reaches the broker, and the outcome says why', async () => {
      const fetched: string[] = [];
      const driver = segmentActionDriver((async (input: string | URL | Request) => {
        fetched.push(String(input));
        return new Response('{}');
      }) as typeof fetch);
      const event = {
        event_name: 'purchase',
        event_id: '0195f1c2-7a3b-7c4d-8e5f-6a7b8c9d0e1f',
        event_time: '2026-11-28T08:00:00.000Z',
        user_id: 'u-1',
        event_data: { value: 12, currency: 'EUR' },
      } as unknown as StoredEvent;
      assert.ok(driver.perform, 'the catalogue driver performs');
      const performed = await driver.perform(event, {
        destination: kafka(`127.0.0.1:${port}`),
        secrets: { username: 'u', password: 'p' },
        now: new Date('2026-11-28T08:00:00.000Z'),
      } as never);
      // A connection would come within milliseconds; kafkajs retries several times.
      await new Promise((settle) => setTimeout(settle, 300));
      assert.deepEqual(connections, []);
      assert.deepEqual(fetched, []);
      assert.equal(performed.outcome.status, 'rejected');
      assert.match(
        (performed.outcome as { reason?: string }).reason ?? '',
        /^egress refused: kafka send sends over a client of its own \(kafkajs\)/,
      );
    });
  });
});
