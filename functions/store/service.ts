/**
 * `store` as a Cloud Run service (instance-based billing, docs/deploy.md): the function's module
 * registers its target, then the framework's server serves it (functions/serve.ts).
 */
import { serveRegistered } from '../serve.ts';
import { runtime } from './index.ts';

if (import.meta.main) serveRegistered('store', runtime.listen);
