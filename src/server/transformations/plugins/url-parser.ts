import { z } from "zod";
import { copyRecord, definePlugin, field, setOwn, withProperties } from "../plugin";

const propertyName = z.string().min(1, "must not be empty.").max(400, "must be at most 400 characters.");

/** The parts the plugin stores, as WHATWG URL gives them. */
export interface UrlParts {
  protocol: string;
  host: string;
  pathname: string;
  hash: string;
  searchParams: URLSearchParams;
}

/**
 * Common http(s) URLs that WHATWG URL would leave exactly as written: lowercase ASCII host,
 * no port, no dot segments, only characters it does not percent-encode. Parsing these
 * with a regular expression is several times faster than `new URL` (the hot path parses
 * every event's URL); everything else goes through `new URL`. A test checks both agree.

 */
const SIMPLE_URL = /^(https?):\/\/([a-z0-9-]+(?:\.[a-z0-9-]+)*)((?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@%]*)*)(?:\?([A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*))?(?:#([A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*))?$/;

export function urlParts(raw: string): UrlParts | null {
  const simple = SIMPLE_URL.exec(raw);
  // Dot segments (also %2e-encoded) and stray % are normalised by WHATWG; a host whose last label starts with a
  // digit may be an IPv4 address in another notation (0x7f.1): leave those to `new URL`.
  if (simple && !/\/\.\.?(?:\/|$)|%(?![0-9A-Fa-f]{2})|%2e/i.test(simple[3]!) && !/(?:^|\.)[0-9][^.]*$/.test(simple[2]!)) {
    return { protocol: simple[1]!, host: simple[2]!, pathname: simple[3] || "/", hash: simple[5] ?? "", searchParams: new URLSearchParams(simple[4] ?? "") };
  }
  try {
    const url = new URL(raw);
    return { protocol: url.protocol.replace(/:$/, ""), host: url.host, pathname: url.pathname, hash: url.hash.replace(/^#/, ""), searchParams: url.searchParams };
  } catch {
    return null; // not an absolute URL
  }
}

/** Query parameters as an object: a repeated parameter becomes a list of its values. */
function paramsOf(url: UrlParts): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const seen = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
    setOwn(params, name, seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]);
  }
  return params;
}

export const urlParserPlugin = definePlugin({
  key: "url-parser",
  name: "URL parser",
  description:
    "Splits a URL property ($current_url by default) into <prefix>protocol, <prefix>host, <prefix>path, <prefix>hash and <prefix>params (the query parameters as an object; flatten them with the Flatten plugin after this one). Events without a valid absolute URL pass unchanged.",
  config: z.object({
    source: propertyName.default("$current_url").meta(field("URL property", "The property holding the URL.")),
    prefix: z.string().max(100, "must be at most 100 characters.").default("url_").meta(field("Prefix", "Put before the new properties' names.")),
  }),
  build(config) {
    const { source, prefix } = config;
    return (event) => {
      const raw = event.properties[source];
      if (typeof raw !== "string") return event;
      const url = urlParts(raw);
      if (!url) return event;
      const properties = copyRecord(event.properties);
      setOwn(properties, `${prefix}protocol`, url.protocol);
      setOwn(properties, `${prefix}host`, url.host);
      setOwn(properties, `${prefix}path`, url.pathname);
      setOwn(properties, `${prefix}hash`, url.hash);
      setOwn(properties, `${prefix}params`, paramsOf(url));
      return withProperties(event, properties);
    };
  },
});
