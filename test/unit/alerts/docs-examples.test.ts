/**
 * docs/alerts.md's YAML examples are Alerts apply would take: each ```yaml block of the page is
 * checked as a registry resource, with the settings' connection and destinations the examples name.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { resourceViolations } from '../../../core/registry/resources.ts';
import type { Connection } from '../../../schemas/settings.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const page = readFileSync(join(root, 'docs/alerts.md'), 'utf8');
const examples = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const CONNECTIONS: Connection[] = [{ id: 'ops-chat', type: 'chat', url: 'https://chat.example/hook' }];

describe('docs/alerts.md: its YAML examples', () => {
  it('has one for every kind of condition the page shows as a section', () => {
    const kinds = examples.map(
      (y) => Object.keys((parse(y) as { spec: { condition: object } }).spec.condition)[0],
    );
    for (const kind of ['failure_rate', 'latency', 'success_drop']) assert.ok(kinds.includes(kind), kind);
  });

  it('are valid Alerts, destinations checked', () => {
    for (const yaml of examples) {
      const doc = parse(yaml) as unknown;
      assert.deepEqual(
        resourceViolations(doc, 'documents[0]', { connections: CONNECTIONS, destinations: ['meta'] }),
        [],
        yaml,
      );
    }
  });
});
