/**
 * The studio's log lines show request URLs as the gateway's do (core/privacy/redact-url.ts): an admin
 * token pasted into a link as `?token=` is never written to the log (#75). Over real HTTP on
 * loopback, with the handler's log captured.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RegistryClient } from '../../adapters/registry.ts';
import { createStudioHandler } from '../../studio/server.ts';

const ADMIN_TOKEN = 'adm_0123456789abcdef0123456789abcdef';

describe('studio: credentials in a URL never reach its log', () => {
  it('a refused call with the admin token as ?token= is logged with the token redacted', async () => {
    const lines: string[] = [];
    const handler = createStudioHandler({
      // Never reached: the call is refused before the registry is read.
      registry: {} as RegistryClient,
      adminToken: ADMIN_TOKEN,
      log: (entry) => lines.push(JSON.stringify(entry)),
    });
    const server = createServer(handler).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/v1/admin/resources?token=${ADMIN_TOKEN}&kind=Rule`);
      await res.arrayBuffer();
      assert.equal(res.status, 401);
      assert.equal(lines.length, 1, 'the refusal is logged');
      assert.ok(!lines[0]?.includes(ADMIN_TOKEN), lines[0]);
      assert.match(lines[0] ?? '', /\/v1\/admin\/resources\?token=\[redacted\]&kind=Rule/);
    } finally {
      server.close();
    }
  });
});
