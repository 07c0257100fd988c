/**
 * The settings check of segment_action destinations (core/platforms/segment-action/check.ts),
 * against the catalogue manifest: each problem names its key, and a settings file with one is
 * refused where settings files are read (local/settings-file.ts: `eventbus settings check`, start).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  segmentActionProblems,
  segmentActionViolations,
} from '../../../../core/platforms/segment-action/check.ts';
import { readSettingsFile, SettingsFileError } from '../../../../local/settings-file.ts';
import type { Connection, Destination, Settings } from '../../../../schemas/settings.ts';
import { googleSheetsDestination } from '../../../support/google-sheets.ts';

const klaviyo: Destination = {
  id: 'klaviyo',
  type: 'segment_action',
  destination: 'klaviyo',
  secrets: { api_key: 'KLAVIYO_KEY' },
  actions: [{ action: 'trackEvent', mapping: { profile: { email: { '@path': '$.context.traits.email' } } } }],
};

describe('segment_action: settings check', () => {
  it('accepts a destination whose settings and mappings fit', () => {
    assert.deepEqual(segmentActionProblems(klaviyo), []);
  });

  it('names an unknown destination, and one that does not load here with its reason', () => {
    assert.deepEqual(segmentActionProblems({ ...klaviyo, destination: 'klaviyoo' }), [
      'destination.destination: no Segment Action Destination "klaviyoo" (eventbus destinations list --catalog)',
    ]);
    assert.match(
      segmentActionProblems({ ...klaviyo, destination: 's3' })[0] ?? '',
      /^destination\.destination: s3 does not load here: /,
    );
    const { destination: _slug, ...without } = klaviyo;
    assert.match(segmentActionProblems(without)[0] ?? '', /^destination\.destination: is required/);
  });

  it('a required mapping field missing after the presets is named, with the action', () => {
    const bare = { ...klaviyo, actions: [{ action: 'trackEvent' }] };
    assert.deepEqual(segmentActionProblems(bare, 'destinations[3]'), [
      'destinations[3].actions[0].mapping.profile: required by klaviyo trackEvent',
    ]);
  });

  it('an unknown action, an unknown field and a wrong type are named', () => {
    const bad = {
      ...klaviyo,
      actions: [
        { action: 'trackEvnt' },
        { action: 'trackEvent', mapping: { profile: {}, valeu: 1, value: 'ten', enable_batching: 'yes' } },
      ],
    };
    assert.deepEqual(segmentActionProblems(bad), [
      'destination.actions[0].action: klaviyo has no action "trackEvnt" (its actions: upsertProfile, addProfileToList, removeProfileFromList, trackEvent, orderCompleted, subscribeProfile, unsubscribeProfile, removeProfile)',
      'destination.actions[1].mapping.valeu: is not a field of klaviyo trackEvent (its fields: profile, metric_name, properties, time, value, unique_id, enable_batching, batch_size)',
      'destination.actions[1].mapping.value: must be a number for klaviyo trackEvent',
      'destination.actions[1].mapping.enable_batching: must be true or false for klaviyo trackEvent',
    ]);
  });

  it('settings: a required one missing, an unknown key, a credential in config, a wrong type', () => {
    const mixpanel: Destination = {
      id: 'mixpanel',
      type: 'segment_action',
      destination: 'mixpanel',
      config: { projectToken: 123, region: 'EU' },
      actions: [{ action: 'trackEvent' }],
    };
    assert.deepEqual(segmentActionProblems(mixpanel), [
      'destination.config.projectToken: must be a string (Project Token)',
      'destination.config.region: is not a setting of mixpanel (its settings: projectToken, apiSecret, apiRegion, sourceName, strictMode)',
      'destination.config.apiSecret: is required by mixpanel (Secret Key)',
    ]);
    assert.deepEqual(segmentActionProblems({ ...klaviyo, secrets: {}, config: { api_key: 'pk_live' } }), [
      'destination.config.api_key: is a credential of klaviyo: name a secret under secrets.api_key instead',
    ]);
  });

  it('without actions, Segment’s presets run: accepted where the destination has some, refused where it has none', () => {
    const bare = (slug: string, secrets: Record<string, string>): Destination => ({
      id: slug,
      type: 'segment_action',
      destination: slug,
      secrets,
    });
    assert.deepEqual(segmentActionProblems(bare('iterable', { apiKey: 'ITERABLE_KEY' })), []);
    assert.deepEqual(
      segmentActionProblems(bare('mixpanel', { projectToken: 'MP_TOKEN', apiSecret: 'MP_SECRET' })),
      [],
    );
    assert.match(
      segmentActionProblems(bare('klaviyo', { api_key: 'KLAVIYO_KEY' })).join('\n'),
      /^destination\.actions: klaviyo has no presets: name at least one action \(upsertProfile, /,
    );
  });

  it('a when Segment’s parser reads otherwise than meant is refused: `==`, or a text it cannot parse', () => {
    const when = (w: string) =>
      segmentActionProblems({
        ...klaviyo,
        actions: [{ ...(klaviyo.actions?.[0] as object), action: 'trackEvent', when: w }],
      });
    assert.deepEqual(when('type = "track" and event == "Order Completed"'), [
      'destination.actions[0].when: uses `==`, which Segment reads as `= "="` (it takes no event): write `=`',
    ]);
    assert.match(
      when('type = "track" and (').join(''),
      /^destination\.actions\[0\]\.when: Segment's subscription parser refuses it/,
    );
    assert.deepEqual(when('type = "track" and event = "a == b"'), []);
  });

  it('refuses what the destination’s own connection test refuses: GA4 without a Measurement ID or Firebase App ID', () => {
    const ga4: Destination = {
      id: 'ga4',
      type: 'segment_action',
      destination: 'google-analytics-4',
      secrets: { apiSecret: 'GA4_API_SECRET' },
      actions: [{ action: 'purchase' }],
    };
    assert.deepEqual(segmentActionProblems(ga4), [
      'destination.config.measurementId: google-analytics-4 needs one of measurementId, firebaseAppId: One of Firebase App ID (Mobile app Stream) or Measurement ID (Web Stream) is required',
    ]);
    assert.deepEqual(segmentActionProblems({ ...ga4, config: { measurementId: 'G-XXXXXXX' } }), []);
  });

  it('an action without a default subscription needs `when`', () => {
    const slack: Destination = {
      id: 'slack',
      type: 'segment_action',
      destination: 'slack',
      actions: [
        { action: 'postToChannel', mapping: { url: 'https://hooks.slack.com/services/x', text: 'hi' } },
      ],
    };
    assert.deepEqual(segmentActionProblems(slack), [
      'destination.actions[0].when: is required: slack postToChannel has no preset and no default subscription (name the events it takes)',
    ]);
    assert.deepEqual(
      segmentActionProblems({
        ...slack,
        actions: [{ ...(slack.actions?.[0] as object), action: 'postToChannel', when: ['purchase'] }],
      }),
      [],
    );
  });

  it("a hook's saved result is taken where the action has that hook, in the shape Segment's app saves it", () => {
    // LinkedIn Conversions' onMappingSave picks the conversion rule; its result is in the mapping.
    const linkedin: Destination = {
      id: 'linkedin',
      type: 'segment_action',
      destination: 'linkedin-conversions',
      connection: 'linkedin',
      actions: [
        { action: 'streamConversion', mapping: { onMappingSave: { inputs: {}, outputs: { id: 789 } } } },
      ],
    };
    assert.deepEqual(segmentActionProblems(linkedin), []);
    const saved = (value: unknown, hook = 'onMappingSave') =>
      segmentActionProblems({
        ...linkedin,
        actions: [{ action: 'streamConversion', mapping: { [hook]: value } }],
      });
    const shape =
      'destination.actions[0].mapping.onMappingSave: is the result of linkedin-conversions streamConversion\'s onMappingSave hook, as Segment\'s app saves it: {"outputs": {…}} (and "inputs", an object, if any)';
    assert.deepEqual(saved({ id: 789 }), [shape]);
    assert.deepEqual(saved({ outputs: 'rule-1' }), [shape]);
    assert.deepEqual(saved({ inputs: [], outputs: {} }), [shape]);
    // A hook the action does not have is not a field of it.
    assert.match(
      saved({ outputs: {} }, 'retlOnMappingSave')[0] ?? '',
      /mapping\.retlOnMappingSave: is not a field of/,
    );
  });

  it('OAuth: HubSpot takes its private-app token as the access_token secret, or a connection; with neither, both are named', () => {
    const hubspot: Destination = {
      id: 'hubspot',
      type: 'segment_action',
      destination: 'hubspot',
      actions: [{ action: 'upsertContact' }],
    };
    assert.deepEqual(segmentActionProblems(hubspot), [
      'destination.connection: is required: hubspot authenticates with OAuth (oauth2); name an oauth2 connection holding its client and refresh token (eventbus connect hubspot), or a token that does not expire under secrets.access_token',
    ]);
    assert.deepEqual(segmentActionProblems({ ...hubspot, secrets: { access_token: 'HUBSPOT_TOKEN' } }), []);
  });

  describe('OAuth connections (issue #78)', () => {
    const sheets = googleSheetsDestination('sheet-1', 'google');
    const google: Connection = {
      id: 'google',
      type: 'oauth2',
      secrets: { client_id: 'G_CLIENT_ID', client_secret: 'G_CLIENT_SECRET', refresh_token: 'G_REFRESH' },
    };
    const check = (d: Destination, connections: Connection[]) =>
      segmentActionViolations({ project: 'p', destinations: [d], connections } as unknown as Settings).map(
        (v) => `${v.field}: ${v.description}`,
      );

    it('Google Sheets with an oauth2 connection naming its client and refresh token passes', () => {
      assert.deepEqual(check(sheets, [google]), []);
    });

    it('without a connection, the check says what to name', () => {
      const { connection: _c, ...bare } = sheets;
      assert.deepEqual(check(bare, [google]), [
        'destinations[0].connection: is required: google-sheets authenticates with OAuth (oauth2); name an oauth2 connection holding its client and refresh token (eventbus connect google-sheets)',
      ]);
    });

    it('a connection that lacks what Segment’s refresh function reads is named, role by role', () => {
      assert.deepEqual(check(sheets, [{ ...google, secrets: { refresh_token: 'G_REFRESH' } }]), [
        'destinations[0].connection: connection "google" lacks secrets.client_id, secrets.client_secret: google-sheets refreshes its access token with them (Segment\'s refreshAccessToken)',
      ]);
    });

    it('a missing connection, another kind of connection, and an unknown role are refused', () => {
      assert.deepEqual(check(sheets, []), [
        'destinations[0].connection: no connection "google" (oauth2 connections: none)',
      ]);
      assert.deepEqual(check(sheets, [{ id: 'google', type: 'webhook', url: 'https://example.com/h' }]), [
        'destinations[0].connection: "google" is a webhook connection, not oauth2',
      ]);
      assert.deepEqual(check(sheets, [{ ...google, secrets: { ...google.secrets, password: 'P' } }]), [
        'connections[0].secrets.password: is not a role of an oauth2 connection (access_token, refresh_token, client_id, client_secret)',
      ]);
    });

    it('a destination whose definition cannot refresh needs an access token on its connection', () => {
      const audiences: Destination = {
        id: 'fb',
        type: 'segment_action',
        destination: 'facebook-custom-audiences',
        connection: 'meta',
        config: { retlAdAccountId: '123' },
        actions: [{ action: 'sync', when: ['purchase'] }],
      };
      const problems = check(audiences, [{ id: 'meta', type: 'oauth2', secrets: { refresh_token: 'R' } }]);
      assert.ok(
        problems.includes(
          'destinations[0].connection: connection "meta" lacks secrets.access_token: facebook-custom-audiences\'s definition has no way to refresh a token, so it sends the one given (a long-lived token)',
        ),
        problems.join('\n'),
      );
    });

    it('an access token as a secret is refused where it expires, and the connection roles are not secrets of the destination', () => {
      assert.deepEqual(
        check({ ...sheets, secrets: { access_token: 'T', oauth_refresh_token: 'R' } }, [google]),
        [
          "destinations[0].secrets.access_token: google-sheets's access tokens expire: name an oauth2 connection instead (eventbus connect google-sheets)",
          "destinations[0].secrets.oauth_refresh_token: is read from the destination's oauth2 connection, not named here",
        ],
      );
    });

    it('a destination that is not OAuth takes no connection', () => {
      assert.deepEqual(segmentActionProblems({ ...klaviyo, connection: 'google' }), [
        'destination.connection: klaviyo does not authenticate with OAuth: it takes no connection',
      ]);
    });
  });

  it('the settings check keys problems under destinations[i]', () => {
    const settings = {
      project: 'p',
      destinations: [
        { id: 'hook', type: 'webhook', base_url: 'https://example.com', secrets: { signing_key: 'K' } },
        { ...klaviyo, actions: [{ action: 'trackEvent' }] },
      ],
    } as unknown as Settings;
    assert.deepEqual(segmentActionViolations(settings), [
      { field: 'destinations[1].actions[0].mapping.profile', description: 'required by klaviyo trackEvent' },
    ]);
  });

  it('a settings file with such a problem is refused where settings files are read, naming the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'segment-action-check-'));
    try {
      const file = join(dir, 'env.yaml');
      writeFileSync(
        file,
        [
          'project: demo-project',
          'name: demo',
          'region: europe-west1',
          'destinations:',
          '  - id: klaviyo',
          '    type: segment_action',
          '    destination: klaviyo',
          '    secrets: { api_key: KLAVIYO_KEY }',
          '    actions:',
          '      - action: trackEvent',
          '',
        ].join('\n'),
      );
      assert.throws(
        () => readSettingsFile(file),
        (err: unknown) =>
          err instanceof SettingsFileError &&
          err.errors.some(
            (e) =>
              e.field === 'destinations[0].actions[0].mapping.profile' &&
              e.description === 'required by klaviyo trackEvent',
          ),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
