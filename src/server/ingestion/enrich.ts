/**
 * Enrichment, ingestion's stage between normalising and transformations, on for every
 * project unless it turns it off (`enrich_events`), as PostHog enriches every event: the
 * `$geoip_*` properties from the event's `$ip` (none when the project anonymises IPs, or the
 * event says `$geoip_disable`), and `$browser`, `$os`, `$device_type` and their versions from
 * its user agent when the SDK did not send them. What the client sent always wins.
 *
 * Lookups are cached for the process (bounded): a batch's events mostly share one IP and one
 * user agent, and single-event captures come from a few thousand browsers at a time; parsing a
 * user agent costs more than the rest of an event's enrichment.
 */
import Bowser from "bowser";
import { lookupGeoIp, type GeoIpProperties } from "@/server/geoip/lookup";
import type { IngestEvent } from "./contract";

const DEVICE_TYPES: Record<string, string> = { desktop: "Desktop", mobile: "Mobile", tablet: "Tablet", tv: "TV", bot: "Bot" };
/** The longest user agent read (real ones are a few hundred characters). */
const MAX_USER_AGENT = 2000;
const USER_AGENT_KEYS = ["$browser", "$browser_version", "$os", "$os_version", "$device_type"] as const;

/** posthog-js sends `$browser_version` as a number (124, 17.4); a version that is not one stays text. */
function versionValue(version: string): number | string {
  const number = Number.parseFloat(version);
  return Number.isFinite(number) && /^\d/.test(version) ? number : version;
}

/** PostHog's device and browser properties read from a user-agent string; only what was recognised. */
export function userAgentProperties(userAgent: string): Record<string, string | number> {
  const parsed = Bowser.parse(userAgent.slice(0, MAX_USER_AGENT));
  const out: Record<string, string | number> = {};
  if (parsed.browser.name) out.$browser = parsed.browser.name;
  if (parsed.browser.version) out.$browser_version = versionValue(parsed.browser.version);
  if (parsed.os.name) out.$os = parsed.os.name;
  const osVersion = parsed.os.versionName ?? parsed.os.version;
  if (osVersion) out.$os_version = osVersion;
  const device = parsed.platform.type ? DEVICE_TYPES[parsed.platform.type] : undefined;
  if (device) out.$device_type = device;
  return out;
}

export interface EnrichOptions {
  /** The project's GeoIP: off when it anonymises IPs. */
  geoIp: boolean;
  /** The request's User-Agent header, read for events of a browser or no SDK (a server SDK's header is the server's, not its users'). */
  userAgent: string | null;
}

/** Entries kept per cache; past it, the cache starts over (cheaper than tracking recency, and as good for a working set this size). */
const CACHE_LIMIT = 10_000;
const places = new Map<string, GeoIpProperties | null>();
const agents = new Map<string, Record<string, string | number>>();

function cached<T>(cache: Map<string, T>, key: string, compute: (key: string) => T): T {
  let found = cache.get(key);
  if (found === undefined) {
    found = compute(key);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, found);
  }
  return found;
}

/** Enriches a request's events; each IP and user agent is looked up once per process (see the module comment). */
export class Enricher {
  constructor(private readonly options: EnrichOptions) {}

  private place(ip: string): GeoIpProperties | null {
    return cached(places, ip, lookupGeoIp);
  }

  private agent(userAgent: string): Record<string, string | number> {
    return cached(agents, userAgent, userAgentProperties);
  }

  /** Adds what is missing to the event's properties (in place: they are the pipeline's own copy). */
  enrich(event: IngestEvent): void {
    const p = event.properties;
    if (this.options.geoIp && typeof p.$ip === "string" && p.$geoip_disable !== true) {
      const place = this.place(p.$ip);
      if (place) for (const [key, value] of Object.entries(place)) if (p[key] === undefined) p[key] = value;
    }
    if (USER_AGENT_KEYS.every((key) => p[key] !== undefined)) return;
    const given = typeof p.$raw_user_agent === "string" && p.$raw_user_agent !== "" ? p.$raw_user_agent : null;
    const fromBrowser = p.$lib === undefined || p.$lib === "web";
    const userAgent = given ?? (fromBrowser ? this.options.userAgent : null);
    if (!userAgent) return;
    for (const [key, value] of Object.entries(this.agent(userAgent))) if (p[key] === undefined) p[key] = value;
  }
}
