/** Regenerates docs/openapi.json from the schemas: `node gateway/openapi-write.ts`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openapiDocument } from './openapi.ts';

writeFileSync(
  join(import.meta.dirname, '..', 'docs', 'openapi.json'),
  `${JSON.stringify(openapiDocument(), null, 2)}\n`,
);
