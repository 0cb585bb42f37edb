/**
 * A web site's traffic as events: sessions of page views, autocapture clicks and a page leave,
 * over three hosts, 60 paths, ten referrers, UTM on a fifth of sessions, 20 countries, five
 * browsers and OSes. Used by bench:web and bench:embedded-limit.
 */
import { v7 as uuidv7 } from "uuid";
import type { StoredEventInput } from "@/server/db/events";

export const HOSTS = ["www.example.com", "docs.example.com", "shop.example.com"];
const PATHS = Array.from({ length: 60 }, (_, i) => (i === 0 ? "/" : `/${["blog", "docs", "pricing", "product", "about"][i % 5]}/${i}`));
const REFERRERS = ["$direct", "www.google.com", "news.ycombinator.com", "twitter.com", "www.bing.com", "duckduckgo.com", "github.com", "reddit.com", "t.co", "linkedin.com"];
const UTM = [
  ["google", "cpc", "spring"],
  ["newsletter", "email", "launch"],
  ["twitter", "social", "launch"],
];
const COUNTRIES = ["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "JP", "NL", "ES", "IT", "SE", "PL", "MX", "KR", "CH", "BE", "AT", "IE"];
const BROWSERS = ["Chrome", "Safari", "Firefox", "Edge", "Opera"];
const OSES = ["Windows", "Mac OS X", "iOS", "Android", "Linux"];
const DEVICES = ["Desktop", "Mobile", "Tablet"];
const CLICK_TEXTS = Array.from({ length: 40 }, (_, i) => `Button ${i + 1}`);

/** `sessions` sessions starting within the day from `dayStart` (ms), as events in time order. */
export function dayOfEvents(projectId: number, dayStart: number, sessions: number, pick: () => number): StoredEventInput[] {
  const choose = <T>(list: readonly T[]) => list[Math.floor(pick() * list.length)]!;
  const rows: StoredEventInput[] = [];
  for (let s = 0; s < sessions; s++) {
    const visitor = Math.floor(pick() * 100_000);
    const person = `0190c000-0000-7000-8000-${visitor.toString(16).padStart(12, "0")}`;
    let at = dayStart + Math.floor(pick() * 86_000_000);
    const host = choose(HOSTS);
    const utm = pick() < 0.2 ? choose(UTM) : null;
    const common = {
      $session_id: uuidv7({ msecs: at }),
      $host: host,
      $referring_domain: choose(REFERRERS),
      $geoip_country_code: choose(COUNTRIES),
      $browser: choose(BROWSERS),
      $os: choose(OSES),
      $device_type: choose(DEVICES),
      $viewport_width: 1440,
      $viewport_height: 900,
      $lib: "web",
    };
    const views = [1, 1, 1, 1, 2, 2, 3, 4][Math.floor(pick() * 8)]!;
    let path = choose(PATHS);
    for (let v = 0; v < views; v++) {
      const page = { $pathname: path, $current_url: `https://${host}${path}${v === 0 && utm ? `?utm_source=${utm[0]}` : ""}` };
      const first = v === 0 && utm ? { utm_source: utm[0], utm_medium: utm[1], utm_campaign: utm[2] } : {};
      rows.push({ uuid: uuidv7({ msecs: at }), projectId, event: "$pageview", distinctId: `visitor-${visitor}`, personId: person, timestamp: new Date(at), properties: { ...common, ...page, ...first } });
      at += 1000 + Math.floor(pick() * 40_000);
      if (pick() < 0.25) {
        const click = { $event_type: "click", $el_text: choose(CLICK_TEXTS) };
        rows.push({ uuid: uuidv7({ msecs: at }), projectId, event: "$autocapture", distinctId: `visitor-${visitor}`, personId: person, timestamp: new Date(at), properties: { ...common, ...page, ...click } });
        at += 500;
      }
      if (v + 1 === views) {
        rows.push({ uuid: uuidv7({ msecs: at }), projectId, event: "$pageleave", distinctId: `visitor-${visitor}`, personId: person, timestamp: new Date(at), properties: { ...common, ...page } });
      }
      path = choose(PATHS);
    }
  }
  return rows.sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
}
