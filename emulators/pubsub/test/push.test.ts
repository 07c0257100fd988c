/**
 * Push delivery to a real functions-framework `http` function: classic push body, OIDC token
 * verifiable against the emulator's certs, nack on 500 and redelivery after the retry backoff.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cloudEvent as registerCloudEvent, http as registerHttp } from '@google-cloud/functions-framework';
import { getTestServer } from '@google-cloud/functions-framework/testing';
import { OAuth2Client } from 'google-auth-library';
import { PROJECT, type Running, rest, start, until } from './support/harness.ts';

interface Received {
  readonly authorization: string | undefined;
  readonly body: {
    message: {
      data: string;
      attributes?: Record<string, string>;
      messageId: string;
      message_id: string;
      publishTime: string;
    };
    subscription: string;
    deliveryAttempt: number;
  };
}

const received: Received[] = [];
registerHttp('pubsubEmulatorPushTarget', (req, res) => {
  received.push({ authorization: req.headers.authorization, body: req.body as Received['body'] });
  // The first delivery fails, so the emulator must nack and redeliver.
  res.status(received.length === 1 ? 500 : 204).send('');
});

interface PushedEvent {
  readonly id: string;
  readonly source: string;
  readonly type: string;
  readonly data: { message: { data: string }; subscription: string };
}
const events: PushedEvent[] = [];
registerCloudEvent('pubsubEmulatorEventTarget', (event: unknown) => {
  events.push(event as PushedEvent);
});

describe('pubsub emulator push', () => {
  let run: Running;
  let fn: Server;
  before(async () => {
    run = await start();
    fn = getTestServer('pubsubEmulatorPushTarget');
    await new Promise<void>((resolve) => fn.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await run.stop();
    fn.closeAllConnections();
    await new Promise<void>((resolve) => fn.close(() => resolve()));
  });

  it('pushes the classic body with an ID token, nacks a 500 and redelivers after the backoff', async () => {
    const endpoint = `http://127.0.0.1:${(fn.address() as AddressInfo).port}/`;
    const [topic] = await run.client.createTopic('push-t');
    await topic.createSubscription('push-s', {
      pushConfig: {
        pushEndpoint: endpoint,
        oidcToken: { serviceAccountEmail: `pusher@${PROJECT}.iam.gserviceaccount.com`, audience: 'events' },
      },
      retryPolicy: { minimumBackoff: { seconds: 0, nanos: 100_000_000 }, maximumBackoff: { seconds: 1 } },
    });
    const started = Date.now();
    const id = await topic.publishMessage({ data: Buffer.from('hello'), attributes: { kind: 'a' } });
    await until(() => received.length >= 2);
    // minimumBackoff 0.1 s is honoured as configured (Google's own minimum is 0 s).
    assert.ok(Date.now() - started < 3000);
    const [first, second] = received as [Received, Received];
    assert.equal(first.body.deliveryAttempt, 1);
    assert.equal(second.body.deliveryAttempt, 2);
    assert.equal(second.body.subscription, `projects/${PROJECT}/subscriptions/push-s`);
    assert.equal(Buffer.from(second.body.message.data, 'base64').toString(), 'hello');
    assert.deepEqual(second.body.message.attributes, { kind: 'a' });
    assert.equal(second.body.message.messageId, id);
    assert.equal(second.body.message.message_id, id);
    assert.match(second.body.message.publishTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const token = (second.authorization ?? '').replace(/^Bearer /, '');
    const certs = (await rest(run.emulator.url, 'GET', '/oauth2/v1/certs')).body as Record<string, string>;
    const ticket = await new OAuth2Client().verifySignedJwtWithCertsAsync(token, certs, 'events', [
      'https://accounts.google.com',
    ]);
    assert.equal(ticket.getPayload()?.email, `pusher@${PROJECT}.iam.gserviceaccount.com`);

    // The 204 acked it: nothing is redelivered.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(received.length, 2);
  });

  it('pushes Eventarc binary CloudEvents to a cloudEvent function when the subscription asks for them', async () => {
    const ce = getTestServer('pubsubEmulatorEventTarget');
    await new Promise<void>((resolve) => ce.listen(0, '127.0.0.1', resolve));
    try {
      const [topic] = await run.client.createTopic('ce-t');
      await topic.createSubscription('ce-s', {
        pushConfig: {
          pushEndpoint: `http://127.0.0.1:${(ce.address() as AddressInfo).port}/`,
          attributes: { 'x-emulator-cloudevents': 'binary' },
        },
      });
      const id = await topic.publishMessage({ data: Buffer.from('event') });
      await until(() => events.length >= 1);
      const [event] = events as [PushedEvent];
      assert.equal(event.id, id);
      assert.equal(event.source, `//pubsub.googleapis.com/projects/${PROJECT}/topics/ce-t`);
      assert.equal(event.type, 'google.cloud.pubsub.topic.v1.messagePublished');
      assert.equal(Buffer.from(event.data.message.data, 'base64').toString(), 'event');
      assert.equal(event.data.subscription, `projects/${PROJECT}/subscriptions/ce-s`);
    } finally {
      ce.closeAllConnections();
      ce.close();
    }
  });

  /** A plain endpoint whose answer per push is decided by `answer` (a status, or a delay first). */
  async function endpoint(
    answer: (body: Received['body'], res: ServerResponse) => void,
  ): Promise<{ url: string; close(): void }> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c.toString();
      });
      req.on('end', () => answer(JSON.parse(text) as Received['body'], res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      close: () => {
        server.closeAllConnections();
        server.close();
      },
    };
  }

  it('does not hold other messages behind a slow one when ordering is off', async () => {
    const done: string[] = [];
    const ep = await endpoint((body, res) => {
      const text = Buffer.from(body.message.data, 'base64').toString();
      const finish = () => {
        done.push(text);
        res.writeHead(204).end();
      };
      if (text === 'slow') setTimeout(finish, 500);
      else finish();
    });
    try {
      const [topic] = await run.client.createTopic('hol-t');
      await topic.createSubscription('hol-s', { pushConfig: { pushEndpoint: ep.url } });
      await topic.publishMessage({ data: Buffer.from('slow') });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => topic.publishMessage({ data: Buffer.from(`fast-${i}`) })),
      );
      await until(() => done.length === 21);
      assert.equal(done.at(-1), 'slow');
    } finally {
      ep.close();
    }
  });

  it('pushes within a window that failures halve down to 1 and acks open again', async () => {
    let mode: 'hold' | 'ack' | 'fail' = 'fail';
    const held: ServerResponse[] = [];
    let inFlight = 0;
    let attempts = 0;
    let acked = 0;
    const ep = await endpoint((_body, res) => {
      attempts++;
      inFlight++;
      res.on('finish', () => inFlight--);
      if (mode === 'hold') held.push(res);
      else {
        if (mode === 'ack') acked++;
        res.writeHead(mode === 'ack' ? 204 : 503).end();
      }
    });
    const release = (status: number) => {
      for (const res of held.splice(0)) {
        if (status === 204) acked++;
        res.writeHead(status).end();
      }
    };
    // Bounded waits, generous for a loaded machine: each step waits on a count, never a time.
    const waitFor = (check: () => boolean) => until(check, 30_000);
    const settle = () => new Promise((r) => setTimeout(r, 300));
    try {
      const [topic] = await run.client.createTopic('window-t');
      await topic.createSubscription('window-s', {
        pushConfig: { pushEndpoint: ep.url },
        ackDeadlineSeconds: 60,
        retryPolicy: { minimumBackoff: { seconds: 0, nanos: 0 }, maximumBackoff: { seconds: 0, nanos: 0 } },
      });
      const publish = (n: number, tag: string) =>
        Promise.all(
          Array.from({ length: n }, (_, i) => topic.publishMessage({ data: Buffer.from(`${tag}${i}`) })),
        );
      // Every push refused: the window (1,000 at the start) halves per failure, so ten failures
      // close it to one push at a time; 80 attempts are well past that, and the messages it
      // holds back are not attempts.
      await publish(40, 'a');
      await waitFor(() => attempts >= 80);
      mode = 'hold';
      await waitFor(() => held.length === 1);
      await settle();
      assert.equal(inFlight, 1);
      // Each ack opens it by one: acked as they come, the rest go out, and the window grows.
      mode = 'ack';
      release(204);
      await waitFor(() => inFlight === 0 && acked >= 40);
      mode = 'hold';
      await publish(40, 'b');
      await waitFor(() => held.length >= 20);
      await settle();
      assert.ok(inFlight > 20, `window after 40 acks: ${inFlight}`);
      release(204);
    } finally {
      ep.close();
    }
  });

  it('pushes one ordering key in order, resending from a failed message', async () => {
    const seen: number[] = [];
    let failed = false;
    const ep = await endpoint((body, res) => {
      const n = Number(Buffer.from(body.message.data, 'base64').toString());
      if (n === 5 && !failed) {
        failed = true;
        res.writeHead(503).end();
        return;
      }
      seen.push(n);
      res.writeHead(200).end();
    });
    try {
      const [topic] = await run.client.createTopic('opush-t');
      await topic.createSubscription('opush-s', {
        enableMessageOrdering: true,
        pushConfig: { pushEndpoint: ep.url },
        retryPolicy: { minimumBackoff: { seconds: 0, nanos: 50_000_000 }, maximumBackoff: { seconds: 1 } },
      });
      const ordered = run.client.topic('opush-t', { messageOrdering: true });
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ordered.publishMessage({ data: Buffer.from(String(i)), orderingKey: 'u1' }),
        ),
      );
      await until(() => seen.includes(19));
      assert.deepEqual(
        seen,
        Array.from({ length: 20 }, (_, i) => i),
      );
    } finally {
      ep.close();
    }
  });
});
