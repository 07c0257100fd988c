/**
 * Device and bot flag from the user agent (core/enrich/device.ts). Browser user agents and their
 * expected names and versions come from ua-parser-js's own test corpus (test/browser-test.json);
 * crawlers from isbot's fixtures (fixtures/crawlers.yml).
 */
import assert from 'node:assert/strict';
import { isBot, userAgentFacts } from '../../../core/enrich/device.ts';

describe('enrichment: device and bots from the user agent', () => {
  describe('browsers (ua-parser-js corpus)', () => {
    const cases: [string, Record<string, string>][] = [
      [
        'Mozilla/5.0 (Windows NT 6.2) AppleWebKit/536.6 (KHTML, like Gecko) Chrome/20.0.1090.0 Safari/536.6',
        {
          browser: 'Chrome',
          browser_version: '20.0.1090.0',
          os: 'Windows',
          os_version: '8',
          type: 'desktop',
        },
      ],
      [
        'Mozilla/5.0 (iPhone; U; CPU iPhone OS 5_1_1 like Mac OS X; en) AppleWebKit/534.46.0 (KHTML, like Gecko) CriOS/19.0.1084.60 Mobile/9B206 Safari/7534.48.3',
        {
          browser: 'Chrome',
          browser_version: '19.0.1084.60',
          os: 'iOS',
          os_version: '5.1.1',
          type: 'mobile',
        },
      ],
      [
        'Mozilla/5.0 (Linux; Android 5.0.2; SAMSUNG SM-G925F Build/LRX22G) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/3.0 Chrome/38.0.2125.102 Mobile Safari/537.36',
        // The corpus's older name for it was Samsung Browser; 1.0.x calls it Samsung Internet.
        {
          browser: 'Samsung Internet',
          browser_version: '3.0',
          os: 'Android',
          os_version: '5.0.2',
          type: 'mobile',
        },
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_1 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Mobile/14E304 [FBAN/FBIOS;FBAV/91.0.0.41.73;FBBV/57050710;FBDV/iPhone8,1;FBMD/iPhone;FBSN/iOS;FBSV/10.3.1;FBSS/2;FBCR/Telekom.de;FBID/phone;FBLC/de_DE;FBOP/5;FBRV/0])',
        {
          browser: 'Facebook',
          browser_version: '91.0.0.41.73',
          os: 'iOS',
          os_version: '10.3.1',
          type: 'mobile',
        },
      ],
      [
        'Mozilla/5.0 (Windows NT 6.1; rv:15.0) Gecko/20120716 Firefox/15.0a2',
        { browser: 'Firefox', browser_version: '15.0a2', os: 'Windows', os_version: '7', type: 'desktop' },
      ],
    ];
    for (const [ua, device] of cases) {
      it(`${device['browser']} ${device['browser_version']} on ${device['os']}`, () => {
        assert.deepEqual(userAgentFacts(ua), { device, bot: false });
      });
    }
  });

  describe('crawlers (isbot fixtures)', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
      'Mozilla/5.0 (compatible; AhrefsBot/5.0; +http://ahrefs.com/robot/) AppEngine-Google; (+http://code.google.com/appengine; appid: s~proxyfile1-hrd)',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 13_4_1 like Mac OS X) AppleWebKit/605.1.15Z (KHTML, like Gecko) Version/13.1 Mobile/15E148 Safari/604.1 (Applebot/0.1)',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/100.0.4896.88 Safari/537.36',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
      'CCBot/2.0 (http://commoncrawl.org/faq/)',
      'bitlybot/3.0',
    ]) {
      it(`flags ${ua.slice(0, 60)}…`, () => assert.equal(userAgentFacts(ua).bot, true));
    }
  });

  it('does not flag a program’s own user agent (a backend the gateway filled in), unless it names a crawler', () => {
    for (const ua of [
      'node',
      'curl/8.4.0',
      'python-requests/2.31.0',
      'Go-http-client/1.1',
      'okhttp/4.12.0',
    ]) {
      assert.equal(isBot(ua), false, ua);
    }
    assert.equal(isBot('Googlebot/2.1'), true);
  });

  it('gives the same answer for a user agent seen before (the cache changes nothing)', () => {
    const ua = 'Mozilla/5.0 (Windows NT 6.1; rv:15.0) Gecko/20120716 Firefox/15.0a2';
    assert.deepEqual(userAgentFacts(ua), userAgentFacts(ua));
  });
});
