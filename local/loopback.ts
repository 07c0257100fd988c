/**
 * Preloaded (`node --import`) into servers that take no host option, such as the
 * functions-framework CLI, which listens on every interface: a `listen(port)` without a
 * host binds 127.0.0.1 instead, so local servers stay on loopback (docs/architecture.md §6).
 */
import { Server } from 'node:net';

const listen = Server.prototype.listen;
// biome-ignore lint/suspicious/noExplicitAny: listen has many overloads; arguments are passed through untouched.
Server.prototype.listen = function (this: Server, ...args: any[]) {
  const [first, second] = args;
  if ((typeof first === 'number' || typeof first === 'string') && /^\d+$/.test(String(first))) {
    if (typeof second !== 'string') args.splice(1, 0, '127.0.0.1');
  } else if (first && typeof first === 'object' && !('host' in first) && 'port' in first) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  return Reflect.apply(listen, this, args) as Server;
} as typeof Server.prototype.listen;
