/**
 * The test account filters a new project starts with, as PostHog's TeamManager gives a new
 * team (`set_test_account_filters`, the plain-filter form it used before its "Internal / Test
 * users" cohort): page views from a local server are not real traffic, and nor are the
 * creator's colleagues when the creator signs in with a company address. Plain filters rather
 * than a cohort, so Settings → Project shows and edits exactly what is applied.
 */

/** PostHog's `$host` filter: localhost and 127.0.0.1, with or without a port. */
export const LOCAL_HOST_FILTER = { key: "$host", type: "event", operator: "not_regex", value: "^(localhost|127\\.0\\.0\\.1)($|:)" } as const;

/**
 * Mail providers whose users share nothing but the provider (PostHog's GenericEmails list,
 * its common part): a filter on such a domain would leave out every customer using it.
 */
const GENERIC_EMAIL_DOMAINS = new Set([
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "yahoo.co.uk",
  "yahoo.co.in",
  "yahoo.fr",
  "yahoo.de",
  "yahoo.es",
  "yahoo.it",
  "yahoo.co.jp",
  "ymail.com",
  "rocketmail.com",
  "hotmail.com",
  "hotmail.co.uk",
  "hotmail.fr",
  "hotmail.de",
  "hotmail.it",
  "hotmail.es",
  "outlook.com",
  "outlook.fr",
  "outlook.de",
  "live.com",
  "live.co.uk",
  "live.fr",
  "msn.com",
  "passport.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.com",
  "aim.com",
  "protonmail.com",
  "protonmail.ch",
  "proton.me",
  "pm.me",
  "tutanota.com",
  "tuta.io",
  "fastmail.com",
  "fastmail.fm",
  "hey.com",
  "zoho.com",
  "zohomail.com",
  "mail.com",
  "email.com",
  "gmx.com",
  "gmx.net",
  "gmx.de",
  "web.de",
  "t-online.de",
  "freenet.de",
  "orange.fr",
  "free.fr",
  "laposte.net",
  "wanadoo.fr",
  "libero.it",
  "virgilio.it",
  "yandex.com",
  "yandex.ru",
  "ya.ru",
  "mail.ru",
  "bk.ru",
  "inbox.ru",
  "list.ru",
  "rambler.ru",
  "qq.com",
  "163.com",
  "126.com",
  "sina.com",
  "naver.com",
  "daum.net",
  "hanmail.net",
  "rediffmail.com",
  "seznam.cz",
  "wp.pl",
  "o2.pl",
  "onet.pl",
  "interia.pl",
  "comcast.net",
  "verizon.net",
  "att.net",
  "sbcglobal.net",
  "bellsouth.net",
  "cox.net",
  "charter.net",
  "earthlink.net",
  "btinternet.com",
  "sky.com",
  "shaw.ca",
  "rogers.com",
  "sympatico.ca",
  "bigpond.com",
  "optusnet.com.au",
  "uol.com.br",
  "bol.com.br",
  "terra.com.br",
  "hushmail.com",
  "inbox.com",
  "lycos.com",
  "mailinator.com",
]);

/** Whether `email`'s domain is a mail provider's rather than an organization's. */
export function isGenericEmailDomain(domain: string): boolean {
  return GENERIC_EMAIL_DOMAINS.has(domain.toLowerCase());
}

/**
 * A new project's filters: the local hosts, and with a company address (not a generic
 * provider's) the persons whose `email` contains `@<domain>`. PostHog takes the domain with
 * `@[\w.]+`, which cuts `@my-company.com` to `@my`; the whole domain is taken here.
 */
export function defaultTestAccountFilters(creatorEmail: string): Record<string, string>[] {
  const domain = creatorEmail.trim().toLowerCase().split("@").at(-1) ?? "";
  const company = creatorEmail.includes("@") && domain !== "" && !isGenericEmailDomain(domain);
  // PostHog's order: the e-mail filter first.
  return [...(company ? [{ key: "email", type: "person", operator: "not_icontains", value: `@${domain}` }] : []), { ...LOCAL_HOST_FILTER }];
}
