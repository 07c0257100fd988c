/** The Worker's module (cloudflare-worker.js), as Cloudflare calls it: its variables in `env`. */
declare const worker: {
  fetch(
    request: Request,
    env: { readonly GATEWAY: string; readonly EDGE_SECRET?: string },
  ): Promise<Response>;
};
export default worker;
