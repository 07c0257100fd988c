/**
 * Suggested mappings (core/platforms/segment-action/suggest.ts; docs/catalog-destinations.md,
 * "Suggested mappings"), on real actions of the catalogue manifest: what it proposes for a required
 * field without a default, what it leaves to the user, and the `when` it reads from an action's
 * own field defaults. Each suggestion is then run through the settings check, as the studio saves it.
 */
import assert from 'node:assert/strict';
import {
  type CatalogAction,
  type CatalogField,
  catalogEntry,
} from '../../../../core/platforms/segment-action/catalog.ts';
import { segmentActionProblems } from '../../../../core/platforms/segment-action/check.ts';
import { SYNC_MODE_KEY } from '../../../../core/platforms/segment-action/presets.ts';
import {
  suggestAction,
  suggestField,
  suggestWhen,
} from '../../../../core/platforms/segment-action/suggest.ts';
import type { Destination } from '../../../../schemas/settings.ts';

function actionOf(slug: string, key: string): CatalogAction {
  const action = catalogEntry(slug)?.actions.find((a) => a.key === key);
  assert.ok(action, `${slug} ${key} is in the manifest`);
  return action;
}
function fieldOf(slug: string, action: string, key: string): CatalogField {
  const field = actionOf(slug, action).fields.find((f) => f.key === key);
  assert.ok(field, `${slug} ${action}.${key} is in the manifest`);
  return field;
}
const path = (p: string) => ({ '@path': p });

describe('segment_action: suggested mappings', () => {
  it("proposes a source of our event by the field's key, type and description", () => {
    const cases: [string, string, string, unknown][] = [
      // The event name, for Segment's own track action.
      ['segment', 'sendTrack', 'event_name', path('$.event')],
      // A group call's id, documented as "the group or account ID".
      ['segment', 'sendGroup', 'group_id', path('$.groupId')],
      // "the unique identifier for the customer": the person's user id.
      ['mantle', 'pushEvent', 'customerId', path('$.userId')],
      // "Your company's custom identifier for this user".
      ['facebook-custom-audiences', 'sync', 'externalId', path('$.userId')],
      // An object of profile attributes: the person's traits.
      ['adobe-target', 'updateProfile', 'traits', path('$.context.traits')],
      // A datetime "at which the call occurred": the event's time.
      ['google-enhanced-conversions', 'uploadCallConversion', 'call_timestamp', path('$.timestamp')],
    ];
    for (const [slug, action, key, value] of cases)
      assert.deepEqual(suggestField(fieldOf(slug, action, key))?.value, value, `${slug} ${action}.${key}`);
  });

  it('an enum only where its choices hold one value for a website event', () => {
    // Facebook's action_source offers `website` among eight: where a site's event happened.
    assert.deepEqual(suggestField(fieldOf('facebook-conversions-api', 'purchase', 'action_source')), {
      value: 'website',
      from: 'a website event (the one web choice)',
    });
    // Nextdoor's event_name lists conversion kinds: none is what a site's event is.
    assert.equal(suggestField(fieldOf('nextdoor-capi', 'sendConversion', 'event_name')), undefined);
    // Salesforce's operation (create, update, upsert, delete) is the user's decision.
    assert.equal(suggestField(fieldOf('salesforce', 'lead', 'operation')), undefined);
  });

  it("never guesses a value of the business's own set-up: endpoints, senders, lists, topics", () => {
    const mustNot: [string, string, string][] = [
      ['webhook', 'send', 'url'], // a URI field, but where to deliver, not the page
      ['slack', 'postToChannel', 'url'], // Slack's webhook
      ['qualtrics', 'triggerXflowWorkflow', 'workflowUrl'], // a URI of the user's workflow
      ['twilio-studio', 'triggerStudioFlow', 'from'], // a phone number, but the sender's
      ['sendgrid', 'sendEmail', 'from'], // an e-mail, but the sender's
      ['kafka', 'send', 'topic'],
      ['listrak', 'updateEmailContactProfileFields', 'listId'],
      ['ironclad', 'recordAction', 'group_id'], // a "group id" that is an integer of Ironclad's
      ['google-enhanced-conversions', 'postConversion', 'conversion_label'],
      ['criteo', 'exampleAction', 'greeting'], // nothing says what it is
      // Named as our event's fields, but documented as the platform's own values.
      ['hubspot', 'sendCustomBehavioralEvent', 'eventName'], // "assigned by HubSpot"
      ['hubspot', 'upsertCustomObjectRecord', 'properties'], // "as seen in your HubSpot account"
      ['tiktok-conversions', 'reportWebEvent', 'event'], // one of TikTok's "Supported Web Events"
      ['optimizely-data-platform', 'customEvent', 'event_action'], // an event action, not the event
    ];
    for (const [slug, action, key] of mustNot)
      assert.equal(suggestField(fieldOf(slug, action, key)), undefined, `${slug} ${action}.${key}`);
  });

  it('reads a field from its own documentation, the format included', () => {
    const field = (over: Partial<CatalogField>): CatalogField => ({
      key: 'x',
      label: 'X',
      type: 'string',
      required: true,
      ...over,
    });
    assert.deepEqual(
      suggestField(field({ format: 'email', label: 'Address' }))?.value,
      path('$.context.traits.email'),
    );
    assert.deepEqual(suggestField(field({ key: 'currency' }))?.value, path('$.properties.currency'));
    assert.deepEqual(
      suggestField(field({ key: 'landing', format: 'uri', description: 'The page the visitor was on.' }))
        ?.value,
      path('$.context.page.url'),
    );
    assert.deepEqual(suggestField(field({ key: 'happened', type: 'datetime' }))?.value, path('$.timestamp'));
    assert.deepEqual(suggestField(field({ key: 'event_id' }))?.value, path('$.messageId'));
    assert.equal(suggestField(field({ key: 'reply_to_email', format: 'email' })), undefined);
  });

  it('an action without a subscription: identify when its defaults read traits, track when properties', () => {
    // Friendbuy's trackCustomer reads $.traits; trackPurchase reads $.properties and names the order.
    assert.equal(suggestWhen(actionOf('friendbuy', 'trackCustomer')), 'type = "identify"');
    assert.equal(
      suggestWhen(actionOf('friendbuy', 'trackPurchase')),
      'type = "track" and event = "Order Completed"',
    );
    assert.equal(suggestWhen(actionOf('friendbuy', 'trackSignUp')), 'type = "track" and event = "Signed Up"');
    assert.equal(suggestWhen(actionOf('app-fit', 'track')), 'type = "track"');
    // Its own subscription stands; none is read from Engage's audience fields or an app's context.
    assert.equal(suggestWhen(actionOf('klaviyo', 'trackEvent')), undefined);
    assert.equal(suggestWhen(actionOf('magellan-ai', 'thirdPartyEvent')), undefined);
    assert.equal(suggestWhen(actionOf('ambee', 'subscribeUserToCampaign')), undefined);
  });

  it("an action's suggestions: its mapping entries, its sync mode, its `when`, and the questions left", () => {
    const capi = suggestAction(actionOf('facebook-conversions-api', 'purchase2'));
    assert.deepEqual(capi.mapping, { action_source: 'website', [SYNC_MODE_KEY]: 'add' });
    assert.deepEqual(capi.questions, []);
    assert.equal(capi.when, undefined, 'it has a default subscription');
    const slack = suggestAction(actionOf('slack', 'postToChannel'));
    assert.deepEqual(slack.questions, ['url', 'text']);
    assert.deepEqual(slack.mapping, {});
    // Optional fields are left alone, but for one of a pair its description says is required.
    const track = suggestAction(actionOf('segment', 'sendTrack'));
    assert.deepEqual(track.mapping, {
      event_name: path('$.event'),
      user_id: path('$.userId'),
      anonymous_id: path('$.anonymousId'),
    });
    assert.equal(Object.hasOwn(capi.mapping, 'currency'), false, 'an optional currency with a default stays');
    // Given by the user's mapping: nothing to suggest.
    assert.deepEqual(
      suggestAction(actionOf('slack', 'postToChannel'), undefined, {
        url: 'https://hooks.example',
        text: 'x',
      }).questions,
      [],
    );
  });

  it('accepted, the suggestions pass the settings check as saved', () => {
    const accepted = (slug: string, key: string): Destination => {
      const s = suggestAction(actionOf(slug, key));
      return {
        id: 'd',
        type: 'segment_action',
        destination: slug,
        actions: [{ action: key, ...(s.when ? { when: s.when } : {}), mapping: { ...s.mapping } }],
      } as Destination;
    };
    const actionProblems = (d: Destination) =>
      segmentActionProblems(d).filter((p) => p.startsWith('destination.actions['));
    assert.deepEqual(actionProblems(accepted('facebook-conversions-api', 'purchase2')), []);
    assert.deepEqual(actionProblems(accepted('friendbuy', 'trackPurchase')), []);
    assert.deepEqual(actionProblems(accepted('mantle', 'pushEvent')), []);
    // A question left open stays a problem of the check, naming the field.
    assert.deepEqual(actionProblems(accepted('twilio', 'sendSMS')), [
      'destination.actions[0].mapping.To: required by twilio sendSMS',
      'destination.actions[0].mapping.Body: required by twilio sendSMS',
    ]);
    // Not accepted, the check says what the suggester proposes for the field it asks for.
    assert.deepEqual(
      actionProblems({
        id: 'd',
        type: 'segment_action',
        destination: 'facebook-conversions-api',
        actions: [{ action: 'purchase' }],
      } as Destination),
      [
        'destination.actions[0].mapping.action_source: required by facebook-conversions-api purchase (suggested: "website", a website event (the one web choice))',
      ],
    );
    // A sync mode the action does not offer is refused.
    const wrong = accepted('facebook-conversions-api', 'purchase2');
    const action = wrong.actions?.[0] as { mapping: Record<string, unknown> };
    action.mapping[SYNC_MODE_KEY] = 'mirror';
    assert.deepEqual(actionProblems(wrong), [
      `destination.actions[0].mapping.${SYNC_MODE_KEY}: must be one of "add" for facebook-conversions-api purchase2`,
    ]);
  });
});
