/**
 * URLs as the models write them (docs/sessions.md, "URLs in the models"): a page's URL keeps its
 * path and its campaign parameters (`utm_*`, click ids such as gclid and fbclid), but not what a
 * link may carry about a person or a secret: a parameter named like one (token, key, secret,
 * password, auth, session, e-mail, phone…) keeps its name with its value redacted, an e-mail
 * address anywhere (query, fragment or path) and a parameter value that is a phone number are
 * redacted, and a URL's own user and password are dropped. Pure: one SQL expression, BigQuery
 * regular expressions (RE2) only, so a run pays no subquery per URL.
 */

/** What stands in for a removed value. */
export const REDACTED = 'redacted';

/**
 * Parameter names whose values are secrets or personal data, case-insensitively: a name that
 * contains one of `NAME_PARTS`, ends in `key` or `keys` (api_key, apiKey, X-Api-Key), or is one of
 * `NAMES`. Campaign parameters (utm_*) and click ids match none of them.
 */
const NAME_PARTS = [
  'token',
  'secret',
  'passw',
  'pwd',
  'auth',
  'session',
  'credential',
  'signature',
  'jwt',
  'otp',
  'ssn',
  'e[-_]?mail',
  'phone',
  'mobile',
] as const;
const NAMES = ['code', 'sid', 'sig', 'pass', 'pin', 'tel', 'mail'] as const;

/** A parameter's separators (`?`, `&`, and `#` for the fragment's) and what a name or value may hold. */
const NAME = '[^=&#]*';
const VALUE = '[^&#]*';

/** `https://user:password@host` → `https://host`. */
const USERINFO = String.raw`^([A-Za-z][A-Za-z0-9+.\-]*://)[^/?#@]*@`;

/** A secret-named parameter: its `?name=` kept as \1, its value replaced. */
const SECRET_PARAMETER = `(?i)([?&#](?:${NAME}(?:${NAME_PARTS.join('|')})${NAME}|${NAME}keys?|${NAMES.join('|')})=)${VALUE}`;

/** An e-mail address, plain or percent-encoded (`%40`, `%2B`), wherever it is. */
const EMAIL = String.raw`(?i)[a-z0-9._%+\-]+(?:@|%40)[a-z0-9\-]+(?:\.[a-z0-9\-]+)*\.[a-z]{2,}`;

/** Separators inside a phone number, plain or encoded (a space is `+` or `%20` in a query). */
const SEP = String.raw`(?:%20|%28|%29|[ .()+\-])*`;
/**
 * A whole parameter value that is a phone number: international (`+`, 7 to 15 digits), national
 * (a leading 0, 7 to 15 digits) or North American with separators (`(555) 123-4567`). A bare run
 * of digits without `+` or a leading 0 is taken for an id (order, product), not a phone.
 */
const PHONE = [
  String.raw`(?:\+|%2B)(?:[0-9]${SEP}){7,15}`,
  String.raw`(?:\(|%28)?0${SEP}(?:[0-9]${SEP}){6,14}`,
  String.raw`(?:\(|%28)?[0-9]{3}(?:\)|%29)?(?:%20|[ .+\-])*[0-9]{3}(?:%20|[ .+\-])+[0-9]{4}`,
].join('|');
/** The value with its parameter (\1) and what follows it (\2): matched whole, so not a prefix. */
const PHONE_PARAMETER = `([?&#]${NAME}=)(?:${PHONE})([&#]|$)`;

/**
 * The SQL of `url` (a STRING expression) as the models write it: NULL stays NULL. The phone step
 * runs twice because each match takes the `&` after its value, so a phone number right after
 * another is found by the second.
 */
export function cleanUrlSql(url: string): string {
  const replace = (expr: string, pattern: string, by: string) =>
    `REGEXP_REPLACE(${expr}, r'${pattern}', r'${by}')`;
  let sql = replace(url, USERINFO, '\\1');
  sql = replace(sql, SECRET_PARAMETER, `\\1${REDACTED}`);
  sql = replace(sql, EMAIL, REDACTED);
  sql = replace(sql, PHONE_PARAMETER, `\\1${REDACTED}\\2`);
  return replace(sql, PHONE_PARAMETER, `\\1${REDACTED}\\2`);
}
