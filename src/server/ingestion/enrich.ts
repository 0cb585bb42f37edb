/**
 * Enrichment, ingestion's stage between normalising and transformations, on for every
 * project unless it turns it off (`enrich_events`), as PostHog enriches every event: the
 * `$geoip_*` properties from the event's `$ip` (none when the project anonymises IPs, or the
 * event says `$geoip_disable`), and `$browser`, `$os`, `$device_type` and their versions from
 * its user agent when the SDK did not send them. What the client sent always wins.
 *
 * Lookups are cached per request: a batch's events mostly share one IP and one user agent.
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

/** Per request: each IP and user agent looked up once. */
export class Enricher {
  private readonly places = new Map<string, GeoIpProperties | null>();
  private readonly agents = new Map<string, Record<string, string | number>>();

  constructor(private readonly options: EnrichOptions) {}

  private place(ip: string): GeoIpProperties | null {
    let found = this.places.get(ip);
    if (found === undefined) {
      found = lookupGeoIp(ip);
      this.places.set(ip, found);
    }
    return found;
  }

  private agent(userAgent: string): Record<string, string | number> {
    let found = this.agents.get(userAgent);
    if (found === undefined) {
      found = userAgentProperties(userAgent);
      this.agents.set(userAgent, found);
    }
    return found;
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
