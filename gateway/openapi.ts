/**
 * The gateway's OpenAPI 3.1 document, generated from the typebox schemas (the single source):
 * served at GET /v1/openapi.json and committed as docs/openapi.json, which a test keeps current.
 */

import { ERRORS, type ErrorCode, STUDIO_ONLY_CODES } from '../core/errors.ts';
import { CATALOGUE } from '../schemas/catalogue.ts';
import { Context } from '../schemas/context.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Builds the document; `limits` are the defaults of docs/architecture.md §3. */
/** A translator's URL with a credential as its last segment (docs/senders.md). */
const urlCredentialParameters = [
  { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
  { name: 'credential', in: 'path', required: true, schema: { type: 'string' } },
];

/** How a translator's senders may prove themselves (docs/senders.md). */
const translatorSecurity = [{ bearer: [] }, { basic: [] }, { signature: [] }];

const translatorBody = {
  required: true,
  content: {
    'text/csv': { schema: { type: 'string' } },
    'application/json': { schema: {} },
    'application/x-ndjson': { schema: { type: 'string' } },
    'application/x-www-form-urlencoded': { schema: { type: 'string' } },
  },
};

const segmentBody = {
  required: true,
  content: {
    'application/json': { schema: { type: 'object' } },
    'application/x-www-form-urlencoded': {
      schema: { type: 'string', description: 'JSON, as RudderStack’s library labels it' },
    },
  },
};

/**
 * The default paths of GA4's and Snowplow's senders (gateway/collect-paths.ts, docs/senders.md
 * "Default paths"), served by the translators `ga4-mp` and `snowplow`.
 */
function collectPaths(errorResponses: Record<string, unknown>): Record<string, unknown> {
  const ga4Parameters = [
    { name: 'measurement_id', in: 'query', description: 'Kept on every event', schema: { type: 'string' } },
    { name: 'firebase_app_id', in: 'query', description: 'Kept on every event', schema: { type: 'string' } },
  ];
  const ga4Body = {
    required: true,
    content: {
      'application/json': { schema: { type: 'object' } },
      'text/plain': { schema: { type: 'string' } },
    },
  };
  const snowplowSecurity = [
    { bearer: [] },
    { writeKeyHeader: [] },
    { writeKeyQuery: [] },
    { snowplowAppId: [] },
  ];
  return {
    '/mp/collect': {
      post: {
        operationId: 'ga4Collect',
        summary:
          'A GA4 Measurement Protocol request, its host changed: translated by the translator ga4-mp; an event that cannot become one is kept for invalid_events',
        parameters: ga4Parameters,
        security: [{ ga4ApiSecret: [] }, { bearer: [] }],
        requestBody: ga4Body,
        responses: { '204': { description: 'Published, as GA4 answers: no body' }, ...errorResponses },
      },
    },
    '/debug/mp/collect': {
      post: {
        operationId: 'ga4Validate',
        summary: 'GA4’s validation server: the same request validated, nothing published',
        parameters: ga4Parameters,
        security: [{ ga4ApiSecret: [] }, { bearer: [] }],
        requestBody: ga4Body,
        responses: {
          '200': {
            description:
              'GA4’s {"validationMessages": [{fieldPath, description, validationCode}]}, empty when valid',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          ...errorResponses,
        },
      },
    },
    '/com.snowplowanalytics.snowplow/tp2': {
      post: {
        operationId: 'snowplowPost',
        summary:
          'Snowplow trackers’ default POST path (tracker protocol payload_data): translated by the translator snowplow',
        security: snowplowSecurity,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['data'] } } },
        },
        responses: {
          '200': {
            description: 'One message id per event (null for one kept for invalid_events)',
            content: { 'application/json': { schema: ref('TranslateResponse') } },
          },
          ...errorResponses,
        },
      },
    },
    '/i': {
      get: {
        operationId: 'snowplowPixel',
        summary: 'Snowplow’s pixel: one tracker protocol event in the query, answered with a 1×1 GIF',
        security: snowplowSecurity,
        responses: {
          '200': { description: 'Published', content: { 'image/gif': { schema: { type: 'string' } } } },
          ...errorResponses,
        },
      },
    },
  };
}

export function openapiDocument(): Record<string, unknown> {
  const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  const eventSchemas: Record<string, unknown> = {};
  for (const e of CATALOGUE) {
    const data = json(e.schema);
    eventSchemas[`${e.name}_v${e.version}`] = {
      title: `${e.name} (v${e.version})`,
      description: `${e.description}. Context fields plus these event fields, all at the top level or all in \`event_data\`.`,
      type: 'object',
      allOf: [ref('Context'), { properties: { event_name: { const: e.name } } }],
      // The gateway takes the event fields at the top level or in `event_data`; a schema of
      // required fields can say "here or there" only as two forms.
      anyOf: [
        { ...data, title: 'top level' },
        { title: 'in event_data', required: ['event_data'], properties: { event_data: data } },
      ],
    };
  }
  // Context is closed in schemas/context.ts because the normaliser validates only the context
  // keys it split off; on the wire every other top-level key is event data, so here it is open
  // (its groups, user, page, …, stay closed as the gateway checks them).
  const {
    additionalProperties: _closed,
    required: _required,
    ...contextFields
  } = json(Context as unknown as Record<string, unknown>);
  const gatewayErrors = Object.entries(ERRORS).filter(([code]) => !STUDIO_ONLY_CODES.has(code as ErrorCode));
  const errorResponses = Object.fromEntries(
    [...new Set(gatewayErrors.map(([, s]) => s.http))].sort().map((http) => [
      String(http),
      {
        description: gatewayErrors
          .filter(([, s]) => s.http === http)
          .map(([code]) => code)
          .join(', '),
        content: { 'application/json': { schema: ref('Error') } },
      },
    ]),
  );
  const success = {
    description: 'Published: one message id per event, in order',
    content: { 'application/json': { schema: ref('PublishResponse') } },
  };
  const security = [{ bearer: [] }, { basic: [] }, { writeKeyHeader: [] }, { writeKeyQuery: [] }];
  const translateResponses = {
    '200': {
      description: 'Published: one message id per row, in order (null for a row refused with partial=true)',
      content: { 'application/json': { schema: ref('TranslateResponse') } },
    },
    ...errorResponses,
  };
  const segmentResponses = {
    '200': {
      description:
        'Segment’s {"success": true}, with one message id per call (null for a call kept for invalid_events)',
      content: { 'application/json': { schema: ref('TranslateResponse') } },
    },
    ...errorResponses,
  };
  const bodyTypes = (schema: unknown) => ({
    required: true,
    content: { 'application/json': { schema }, 'text/plain': { schema } },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'eventbus gateway',
      version: '1',
      description:
        "Publishes events to the environment's Pub/Sub topics. Bodies may be gzip-compressed (Content-Encoding: gzip). Limits: 1 MiB per event, 10 MB per request, 1000 events per request, nesting depth 32.",
    },
    paths: {
      '/v1/topics/{topic}': {
        post: {
          operationId: 'publishPlain',
          summary: 'Publish one event or an array of up to 1000',
          parameters: [
            {
              name: 'topic',
              in: 'path',
              required: true,
              description: 'A configured topic (`events`, …) or an event name, an alias for `events`',
              schema: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,62}$' },
            },
            {
              name: 'tag',
              in: 'query',
              required: false,
              description:
                'The first-party tag’s form (`1`): each event’s `traits` split into its `user` group; a refused event kept for invalid_events (null in messageIds, named in violations) instead of refusing the request; an event refused for its event_time alone takes the time it was received',
              schema: { type: 'string', enum: ['1'] },
            },
          ],
          security,
          requestBody: bodyTypes({
            oneOf: [
              ref('PathEvent'),
              { type: 'array', minItems: 1, maxItems: 1000, items: ref('PathEvent') },
            ],
          }),
          responses: {
            '200': {
              description:
                'Published: one message id per event, in order (with tag=1, null for an event kept for invalid_events)',
              content: {
                // Either: a plain answer matches both, which oneOf would refuse.
                'application/json': { schema: { anyOf: [ref('PublishResponse'), ref('TranslateResponse')] } },
              },
            },
            ...errorResponses,
          },
        },
      },
      '/v1/projects/{project}/topics/{topic}:publish': {
        post: {
          operationId: 'publishNative',
          summary: 'Publish one event, or a Pub/Sub publish envelope (base64 JSON events)',
          parameters: [
            { name: 'project', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'topic', in: 'path', required: true, schema: { type: 'string' } },
          ],
          security,
          requestBody: bodyTypes({ oneOf: [ref('Event'), ref('PublishEnvelope')] }),
          responses: { '200': success, ...errorResponses },
        },
      },
      '/v1/translators/{name}': {
        post: {
          operationId: 'translate',
          summary:
            'Turn a payload in a translator’s format (CSV, JSON, NDJSON) into events: every row validated first, the request refused whole on any invalid row unless partial=true; idempotent, not atomic',
          parameters: [
            {
              name: 'name',
              in: 'path',
              required: true,
              description: 'The translator (a runtime resource of the registry)',
              schema: { type: 'string', pattern: '^[a-z][a-z0-9_-]{0,62}$' },
            },
            {
              name: 'partial',
              in: 'query',
              description: 'true: publish the valid rows and answer null for the invalid ones',
              schema: { type: 'boolean' },
            },
            {
              name: 'Idempotency-Key',
              in: 'header',
              description:
                'Without a translator `key`, event ids derive from this (else the body digest) and the row number',
              schema: { type: 'string' },
            },
          ],
          security: translatorSecurity,
          requestBody: translatorBody,
          responses: translateResponses,
        },
      },
      '/v1/translators/{name}/{credential}': {
        get: {
          operationId: 'checkTranslatorUrl',
          summary:
            'For senders that check a URL before posting (Mailchimp): 200 when a post with this credential would be accepted; nothing is published',
          parameters: urlCredentialParameters,
          security: [],
          responses: { '200': { description: 'The URL and its credential are good' }, ...errorResponses },
        },
        post: {
          operationId: 'translateWithUrlCredential',
          summary:
            'The same, for senders that can only be given a URL: a token whose only scope is translate:{name}, where the translator sets auth.url_token (docs/senders.md)',
          parameters: urlCredentialParameters,
          security: [],
          requestBody: translatorBody,
          responses: translateResponses,
        },
      },
      '/v1/batch': {
        post: {
          operationId: 'segmentBatch',
          summary:
            'Segment’s and RudderStack’s batch call, translated by the translator named segment; a call that cannot become an event is kept for invalid_events while the rest go on (docs/senders.md)',
          security: [{ basic: [] }, { bearer: [] }],
          requestBody: segmentBody,
          responses: segmentResponses,
        },
      },
      '/v1/{call}': {
        post: {
          operationId: 'segmentCall',
          summary: 'One Segment HTTP API call; the path gives its type when the body does not',
          parameters: [
            {
              name: 'call',
              in: 'path',
              required: true,
              schema: { type: 'string', enum: ['track', 'identify', 'page', 'screen', 'group', 'alias'] },
            },
          ],
          security: [{ basic: [] }, { bearer: [] }],
          requestBody: segmentBody,
          responses: segmentResponses,
        },
      },
      ...collectPaths(errorResponses),
      '/health': {
        get: { operationId: 'health', responses: { '200': { description: 'Serving' } } },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Project token (ebt_…) or a Google ID/access token',
        },
        basic: {
          type: 'http',
          scheme: 'basic',
          description:
            'A project token, or a write key created server-usable, as the user name with no password (Segment’s and RudderStack’s libraries)',
        },
        signature: {
          type: 'apiKey',
          in: 'header',
          name: 'Stripe-Signature',
          description:
            'A vendor’s body signature where the translator sets auth.signature: Stripe-Signature, X-Shopify-Hmac-Sha256, X-Hub-Signature-256, X-WC-Webhook-Signature, X-HubSpot-Signature-v3, Paddle-Signature, Typeform-Signature, Calendly-Webhook-Signature, or the generic form’s header',
        },
        writeKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Write-Key',
          description: 'Write key (ebk_…)',
        },
        writeKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'key',
          description: 'Write key (ebk_…), for sendBeacon',
        },
        ga4ApiSecret: {
          type: 'apiKey',
          in: 'query',
          name: 'api_secret',
          description:
            'On GA4’s /mp/collect: a project token with translate:ga4-mp (or translate:*), as in Bearer',
        },
        snowplowAppId: {
          type: 'apiKey',
          in: 'query',
          name: 'aid',
          description:
            'On Snowplow’s paths: a write key as the tracker’s app id (in each event of a POST body, or the pixel’s query)',
        },
      },
      schemas: {
        ContextFields: contextFields,
        Context: {
          description: 'The context fields, with `event_name` required.',
          type: 'object',
          allOf: [ref('ContextFields')],
          required: ['event_name'],
        },
        Event: {
          description:
            'Context fields at the top level; every other field is event data (or nest it in `event_data`).',
          type: 'object',
          allOf: [ref('Context')],
          properties: { event_data: { type: 'object' } },
        },
        PathEvent: {
          description:
            'An Event on /v1/topics/{topic}: `event_name` may be left out when the path is the event name (an alias of `events`), and must then match it.',
          type: 'object',
          allOf: [ref('ContextFields')],
          properties: { event_data: { type: 'object' } },
        },
        ...eventSchemas,
        PublishEnvelope: {
          type: 'object',
          required: ['messages'],
          additionalProperties: false,
          properties: {
            messages: {
              type: 'array',
              minItems: 1,
              maxItems: 1000,
              items: {
                type: 'object',
                additionalProperties: false,
                properties: {
                  data: {
                    type: 'string',
                    contentEncoding: 'base64',
                    description: 'The event as base64 JSON',
                  },
                  attributes: {
                    type: 'object',
                    additionalProperties: { type: 'string', maxLength: 1024 },
                    maxProperties: 96,
                  },
                  orderingKey: { type: 'string' },
                },
              },
            },
          },
        },
        PublishResponse: {
          type: 'object',
          required: ['messageIds'],
          properties: { messageIds: { type: 'array', items: { type: 'string' } } },
        },
        TranslateResponse: {
          type: 'object',
          required: ['messageIds'],
          properties: {
            messageIds: { type: 'array', items: { type: ['string', 'null'] } },
            invalidRows: {
              type: 'integer',
              description: 'With partial=true (tag=1 on the plain form): rows refused',
            },
            violations: {
              type: 'array',
              description:
                'With partial=true: why (at most 100), `rows[3].amount` (`[3].content_name` on the plain form)',
              items: {
                type: 'object',
                properties: { field: { type: 'string' }, description: { type: 'string' } },
              },
            },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'status'],
              properties: {
                code: { type: 'integer' },
                message: { type: 'string' },
                status: { type: 'string' },
                details: { type: 'array', items: { type: 'object' } },
              },
            },
          },
        },
      },
    },
  };
}
