/**
 * The models' SQL for issue #61, asserted on the generated text (what it does is tested on the
 * emulator: test/scheduler/identity-trust.test.ts, test/scheduler/landing-urls.test.ts): the
 * identity run takes only trusted events' word for joining persons, and the sessions run writes
 * landing pages through cleanUrlSql.
 */
import assert from 'node:assert/strict';
import { CREDENTIAL_ATTRIBUTE, WRITE_KEY_CREDENTIAL } from '../../../core/event.ts';
import { identityRunSql, RULE_ORIGIN_ATTRIBUTE } from '../../../core/models/identity-graph.ts';
import { cleanUrlSql } from '../../../core/models/page-url.ts';
import { sessionsRunSql } from '../../../core/models/sessions.ts';
import { ORIGIN_ATTRIBUTE } from '../../../core/rules/rules.ts';

const UPTO = new Date('2026-11-24T10:00:00.000Z');
const OPTIONS = { project: 'p', dataset: 'events' };

/** The statement of a script that starts with `start` (one only). */
function statementOf(sql: string, start: string): string {
  const found = sql
    .split(/;\n/)
    .map((s) => s.replace(/^(--[^\n]*\n|\s*\n)+/g, '').trim())
    .filter((s) => s.startsWith(start));
  assert.equal(found.length, 1, `one statement starting ${start}`);
  return found[0] as string;
}

describe('models: whose word the identity run takes (issue #61)', () => {
  const sql = identityRunSql(OPTIONS, UPTO).sql;

  it('marks an event untrusted when a write key sent it or a rule published it', () => {
    assert.equal(RULE_ORIGIN_ATTRIBUTE, ORIGIN_ATTRIBUTE);
    assert.equal(WRITE_KEY_CREDENTIAL, 'key');
    const arrived = statementOf(sql, 'CREATE TEMP TABLE arrived');
    assert.ok(
      arrived.includes(
        `IFNULL(JSON_VALUE(attributes, '$.${CREDENTIAL_ATTRIBUTE}'), '') != 'key' AND JSON_VALUE(attributes, '$.origin') IS NULL AS trusted`,
      ),
      arrived,
    );
  });

  it('links the identifiers of one message, and of a trusted one only', () => {
    assert.match(statementOf(sql, 'CREATE TEMP TABLE ids'), /CONCAT\(message_id, '\/', event_id\) AS ev/);
    const links = statementOf(sql, 'CREATE TEMP TABLE links');
    assert.match(
      links,
      /SELECT label AS a, IF\(trusted, MIN\(label\) OVER \(PARTITION BY ev\), label\) AS b/,
    );
    assert.match(
      links,
      /SELECT IF\(trusted, MIN\(label\) OVER \(PARTITION BY ev\), label\) AS a, label AS b/,
    );
    assert.doesNotMatch(links, /PARTITION BY event_id/);
  });

  it('an untrusted claim attaches only a component of anonymous ids, once settled, and never joins two', () => {
    const claims = statementOf(sql, 'CREATE TEMP TABLE claims');
    assert.match(
      claims,
      /WHERE NOT a\.trusted AND a\.kind = 'anonymous_id' AND NOT EXISTS \(SELECT 1 FROM unsettled\)/,
    );
    assert.match(claims, /GROUP BY ra\.root/);
    assert.match(claims, /LIMIT 1\)\[OFFSET\(0\)\] AS target/);
    const attached = statementOf(sql, 'CREATE TEMP TABLE attached');
    assert.match(attached, /WHERE l\.kind != 'anonymous_id'/);
    assert.match(attached, /WHERE m\.kind != 'anonymous_id'/);
    // Merges and the rows written come from the resolved components, claims included.
    assert.match(statementOf(sql, 'CREATE TEMP TABLE merged'), /FROM resolved AS r/);
    assert.match(statementOf(sql, 'CREATE TEMP TABLE changed'), /JOIN resolved AS r ON r\.label = l\.label/);
    assert.ok(sql.indexOf('CREATE TEMP TABLE unsettled') < sql.indexOf('CREATE TEMP TABLE claims'));
  });
});

describe('models: landing pages are written cleaned (issue #61)', () => {
  const sql = sessionsRunSql(OPTIONS, UPTO).sql;

  it('writes the first page’s URL through cleanUrlSql, and rewrites a stored one that differs', () => {
    const first = 'ARRAY_AGG(url IGNORE NULLS ORDER BY event_time, event_id LIMIT 1)[SAFE_OFFSET(0)]';
    assert.ok(
      statementOf(sql, 'CREATE TEMP TABLE recomputed').includes(`${cleanUrlSql(first)} AS landing_page`),
    );
    assert.match(
      statementOf(sql, 'CREATE TEMP TABLE changed'),
      /OR IFNULL\(t\.landing_page, ''\) != IFNULL\(r\.landing_page, ''\)/,
    );
    assert.match(statementOf(sql, 'MERGE `p.events.sessions`'), /landing_page = s\.landing_page/);
  });

  it('is one expression of REGEXP_REPLACE calls over the URL, which it names once', () => {
    const clean = cleanUrlSql('page.url');
    assert.equal(clean.split('page.url').length, 2);
    assert.equal(clean.match(/REGEXP_REPLACE\(/g)?.length, 5);
    assert.doesNotMatch(clean, /SELECT/);
  });
});
