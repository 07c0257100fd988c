/** A reverse proxy's one step, for tests that put the gateway behind a CDN or load balancer stand-in. */
import { type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from 'node:http';

/** Forwards the request to 127.0.0.1:port with these headers (its Host among them), piping the answer back. */
export function forwardTo(
  port: number,
  req: IncomingMessage,
  res: ServerResponse,
  headers: IncomingHttpHeaders,
): void {
  const up = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(up);
}
