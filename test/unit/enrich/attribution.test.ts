/**
 * Attribution from the page (core/enrich/attribution.ts): landing URLs carrying each platform's
 * click id, referrers of the major search engines, social networks and webmail, read with the
 * referrer list the store function loads (adapters/enrichment.ts).
 */
import assert from 'node:assert/strict';
import { loadReferrerList } from '../../../adapters/enrichment.ts';
import { attribution } from '../../../core/enrich/attribution.ts';
import { lookupReferrer, referrerTable } from '../../../core/enrich/referrers.ts';
import type { StoredEvent } from '../../../core/event.ts';

const referrers = referrerTable(loadReferrerList());
const options = { referrers, internalHosts: ['checkout.example.net'] };
const TIME = '2026-11-02T09:30:00.250Z';

function event(page: { url?: string; referrer?: string }, campaign?: Record<string, string>): StoredEvent {
  return {
    event_name: 'page_view',
    event_id: 'e-1',
    event_time: TIME,
    page,
    ...(campaign ? { campaign } : {}),
    event_data: {},
  };
}
const landing = (query: string, referrer?: string) =>
  attribution(
    event({ url: `https://shop.example/landing?${query}`, ...(referrer ? { referrer } : {}) }),
    options,
  );

describe('enrichment: attribution from page.url and page.referrer', () => {
  describe('click ids of every platform, each from its URL parameter', () => {
    const cases: [string, string, string][] = [
      // [URL parameter as the platform writes it, campaign field, expected channel]
      ['gclid', 'gclid', 'paid_search'],
      ['gbraid', 'gbraid', 'paid_search'],
      ['wbraid', 'wbraid', 'paid_search'],
      ['msclkid', 'msclkid', 'paid_search'],
      ['fbclid', 'fbclid', 'social'],
      ['ttclid', 'ttclid', 'social'],
      ['ScCid', 'sccid', 'social'],
      ['epik', 'epik', 'social'],
      ['li_fat_id', 'li_fat_id', 'social'],
      ['rdt_cid', 'rdt_cid', 'social'],
      ['twclid', 'twclid', 'social'],
    ];
    for (const [param, field, channel] of cases) {
      it(`${param} → campaign.${field}, channel ${channel}`, () => {
        const a = landing(`${param}=Cj0KCQ-${field}-123&other=1`);
        assert.equal((a.campaign as Record<string, string>)[field], `Cj0KCQ-${field}-123`);
        assert.equal(a.channel, channel);
      });
    }
  });

  it('reads the UTM fields, and the first of a repeated parameter', () => {
    const a = landing(
      'utm_source=newsletter&utm_medium=email&utm_campaign=black%20friday&utm_term=shoes&utm_content=hero&utm_source=other',
    );
    assert.deepEqual(a.campaign, {
      source: 'newsletter',
      medium: 'email',
      name: 'black friday',
      term: 'shoes',
      content: 'hero',
    });
    assert.equal(a.channel, 'email');
  });

  it('builds Meta fbc from fbclid with the event time (fb.1.<ms>.<fbclid>)', () => {
    const a = landing('fbclid=IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk');
    assert.equal(
      a.campaign?.fbc,
      `fb.1.${Date.parse(TIME)}.IwAR2F4-dbP0l7Mn1IawQQGCINEz7PYXQvwjNwB_qa2ofrHyiLjcbCRxTDMgk`,
    );
  });

  it('keeps the producer’s _fbc cookie over one built from fbclid', () => {
    const a = attribution(
      event({ url: 'https://shop.example/?fbclid=abc' }, { fbc: 'fb.1.1700000000000.cookie' }),
      options,
    );
    assert.equal(a.campaign?.fbc, 'fb.1.1700000000000.cookie');
    assert.equal(a.campaign?.fbclid, 'abc');
  });

  it('the producer’s campaign wins: its UTM fields as a group, its click ids one by one', () => {
    const a = attribution(
      event(
        {
          url: 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_term=boots&gclid=url-click&msclkid=ms-1',
        },
        { source: 'crm', medium: 'email', gclid: 'producer-click' },
      ),
      options,
    );
    assert.deepEqual(a.campaign, {
      source: 'crm',
      medium: 'email',
      gclid: 'producer-click',
      msclkid: 'ms-1',
    });
    assert.equal(a.channel, 'email');
  });

  describe('referrers of the major search engines, social networks and webmail', () => {
    const cases: [string, string, string, string][] = [
      ['https://www.google.com/', 'www.google.com', 'Google', 'organic_search'],
      ['https://www.google.co.uk/search?q=boots', 'www.google.co.uk', 'Google', 'organic_search'],
      ['https://www.bing.com/search?q=boots', 'www.bing.com', 'Bing', 'organic_search'],
      ['https://duckduckgo.com/', 'duckduckgo.com', 'DuckDuckGo', 'organic_search'],
      ['https://yandex.ru/search/?text=boots', 'yandex.ru', 'Yandex', 'organic_search'],
      ['https://www.baidu.com/s?wd=boots', 'www.baidu.com', 'Baidu', 'organic_search'],
      ['https://search.yahoo.com/search?p=boots', 'search.yahoo.com', 'Yahoo!', 'organic_search'],
      ['https://www.ecosia.org/search?q=boots', 'www.ecosia.org', 'Ecosia', 'organic_search'],
      ['https://l.facebook.com/l.php?u=x', 'l.facebook.com', 'Facebook', 'social'],
      ['https://lm.facebook.com/', 'lm.facebook.com', 'Facebook', 'social'],
      ['https://t.co/AbC123', 't.co', 'Twitter', 'social'],
      ['https://www.linkedin.com/feed/', 'www.linkedin.com', 'LinkedIn', 'social'],
      ['https://out.reddit.com/t3_x', 'out.reddit.com', 'Reddit', 'social'],
      ['https://www.instagram.com/', 'www.instagram.com', 'Instagram', 'social'],
      ['https://pinterest.com/pin/1/', 'pinterest.com', 'Pinterest', 'social'],
      ['https://m.youtube.com/watch?v=x', 'm.youtube.com', 'Youtube', 'social'],
      ['https://www.tiktok.com/@shop', 'www.tiktok.com', 'TikTok', 'social'],
      ['https://mail.google.com/mail/u/0/', 'mail.google.com', 'Gmail', 'email'],
      ['https://outlook.live.com/mail/0/', 'outlook.live.com', 'Outlook.com', 'email'],
      ['https://googleads.g.doubleclick.net/pagead/ads', 'googleads.g.doubleclick.net', 'Google', 'display'],
    ];
    for (const [referrer, host, source, channel] of cases) {
      it(`${referrer} → ${source}, ${channel}`, () => {
        const a = attribution(event({ url: 'https://shop.example/p/1', referrer }), options);
        assert.equal(a.referrer_host, host);
        assert.equal(a.referrer_source, source);
        assert.equal(a.channel, channel);
      });
    }
  });

  it('direct without a referrer, internal from the same site or a listed host, referral otherwise', () => {
    assert.equal(attribution(event({ url: 'https://shop.example/' }), options).channel, 'direct');
    // An event with no page, referrer or campaign (a backend's) was no visit: no channel at all.
    assert.deepEqual(attribution(event({}), options), {});
    const internal = attribution(
      event({ url: 'https://www.shop.example/cart', referrer: 'https://shop.example/p/1' }),
      options,
    );
    assert.equal(internal.channel, 'internal');
    assert.equal(
      attribution(
        event({ url: 'https://shop.example/', referrer: 'https://pay.checkout.example.net/ok' }),
        options,
      ).channel,
      'internal',
    );
    const other = attribution(
      event({ url: 'https://shop.example/', referrer: 'https://blog.example.org/post' }),
      options,
    );
    assert.deepEqual(other, { channel: 'referral', referrer_host: 'blog.example.org' });
  });

  it('a campaign medium decides over the referrer (paid search from Google with utm_medium=cpc)', () => {
    const a = landing('utm_source=google&utm_medium=cpc', 'https://www.google.com/');
    assert.equal(a.channel, 'paid_search');
  });

  it('ignores a page URL or referrer that is not an absolute URL', () => {
    assert.deepEqual(attribution(event({ url: '/landing?gclid=x', referrer: 'not a url' }), options), {});
  });

  it('looks a host up through its parent domains, never past two labels', () => {
    assert.equal(lookupReferrer(referrers, 'news.search.yahoo.com', '/')?.source, 'Yahoo!');
    assert.equal(lookupReferrer(referrers, 'example.co.uk', '/'), undefined);
  });
});
