import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createHttpSender, MAX_RESPONSE_BYTES, type Sender } from '../../functions/adapters/http-sender.ts';

const request = (url: string, body = '{"a":1}') => ({
  method: 'POST' as const,
  url,
  redactedUrl: url,
  headers: { 'content-type': 'application/json', 'x-sig': 'sha256=abc' },
  body,
});

/** The lean plain-http client answers as the node:http path does, response for response. */
describe('http sender: lean plain-http client', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        seen.push(`${req.headers['x-sig']} ${req.headers['content-length']} ${body}`);
        if (req.url === '/chunked') {
          res.writeHead(200, { 'x-rep': ['a', 'b'] });
          res.write('hel');
          res.write('lo ');
          res.end('wörld');
        } else if (req.url === '/big-chunked') {
          res.writeHead(200);
          for (let i = 0; i < 4; i++) res.write('y'.repeat(MAX_RESPONSE_BYTES));
          res.end();
        } else if (req.url === '/close') {
          res.writeHead(202, { connection: 'close' }).end('bye');
        } else if (req.url === '/empty') res.writeHead(204).end();
        else res.writeHead(201, { 'content-type': 'text/plain' }).end(`got ${body}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const lean = createHttpSender();
  const node = createHttpSender({ nodeHttpOnly: true });
  const strip = (r: Awaited<ReturnType<Sender>>) => {
    if (r.kind !== 'response') return r;
    const { date: _date, 'keep-alive': _ka, ...headers } = r.headers;
    return { ...r, headers };
  };

  for (const path of ['/plain', '/chunked', '/big-chunked', '/close', '/empty']) {
    it(`answers ${path} as node:http does`, async () => {
      const a = strip(await lean(request(`${base}${path}`, '{"é":1}'), 2000));
      const b = strip(await node(request(`${base}${path}`, '{"é":1}'), 2000));
      assert.equal(a.kind, 'response');
      assert.deepEqual(a, b);
    });
  }

  it('sends the headers and the body as given, with its byte length', async () => {
    seen.length = 0;
    const r = await lean(request(`${base}/plain`, '{"é":1}'), 2000);
    assert.deepEqual(r.kind === 'response' && [r.status, r.body], [201, 'got {"é":1}']);
    assert.deepEqual(seen, ['sha256=abc 8 {"é":1}']);
  });

  it('keeps at most MAX_RESPONSE_BYTES of a chunked body', async () => {
    const r = await lean(request(`${base}/big-chunked`), 5000);
    assert.equal(r.kind === 'response' && r.body.length, MAX_RESPONSE_BYTES);
  });

  it('sends a request again once when its kept-alive socket was closed under it', async () => {
    // A server that answers each connection's first request, then drops the socket without
    // a word when the next request arrives (an idle timeout racing the request).
    let requests = 0;
    const sockets = new Set<net.Socket>();
    const flaky = net.createServer((s) => {
      sockets.add(s);
      let n = 0;
      s.on('data', () => {
        requests++;
        if (n++ === 0) s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
        else s.resetAndDestroy();
      });
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    try {
      const send = createHttpSender();
      const first = await send(request(url), 2000);
      assert.equal(first.kind === 'response' && first.status, 200);
      const second = await send(request(url), 2000);
      assert.equal(second.kind === 'response' && second.body, 'ok');
      assert.equal(requests, 3);
    } finally {
      // The sender keeps its socket alive; the server drops it so it can close.
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => flaky.close(() => r()));
    }
  });

  it('reports a connection dropped before any answer on a fresh socket as a network error', async () => {
    const rude = net.createServer((s) => s.on('data', () => s.resetAndDestroy()));
    await new Promise<void>((r) => rude.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(rude.address() as AddressInfo).port}/`;
    try {
      const r = await createHttpSender()(request(url), 2000);
      assert.equal(r.kind, 'network_error');
      assert.match(r.kind === 'network_error' ? r.message : '', /ECONNRESET|hang up/);
    } finally {
      await new Promise<void>((r) => rude.close(() => r()));
    }
  });

  it('reports a malformed answer as a network error', async () => {
    const odd = net.createServer((s) => s.on('data', () => s.end('SMTP ready\r\n\r\n')));
    await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(odd.address() as AddressInfo).port}/`;
    try {
      const r = await createHttpSender()(request(url), 2000);
      assert.equal(r.kind, 'network_error');
    } finally {
      await new Promise<void>((r) => odd.close(() => r()));
    }
  });
});
