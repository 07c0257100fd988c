/**
 * A Cloudflare Worker that serves the gateway under a path of the site's own origin
 * (`gateway.origin_path`, docs/browser.md#same-origin-path): bind it to the route
 * `shop.example/_eb/*` (and `www.shop.example/_eb/*`), so Cloudflare calls it for those paths only.
 *
 * Variables of the Worker: `GATEWAY`, the gateway's own address (`https://gateway-….run.app`);
 * `EDGE_SECRET`, a secret also set as `EVENTBUS_EDGE_SECRET` on the gateway, which lets the
 * gateway trust the visitor's address this Worker passes on.
 *
 * The path goes through unchanged (the gateway takes `/_eb` off itself), with the body, the
 * client hints and every other header of the browser's request; the answer comes back as it is,
 * its `Set-Cookie` headers included, so the ids it sets are the site's own.
 */
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const target = new URL(url.pathname + url.search, env.GATEWAY);
    const headers = new Headers(request.headers);
    // The visitor alone: Cloud Run's front end appends this Worker's address after it.
    const visitor = request.headers.get('cf-connecting-ip');
    if (visitor) headers.set('x-forwarded-for', visitor);
    else headers.delete('x-forwarded-for');
    // The host the browser used, for the cookies' domain (the request's own Host is the gateway's).
    headers.set('x-forwarded-host', url.host);
    if (env.EDGE_SECRET) headers.set('x-eventbus-edge', env.EDGE_SECRET);
    else headers.delete('x-eventbus-edge');
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    return fetch(target, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : undefined,
      redirect: 'manual',
    });
  },
};
