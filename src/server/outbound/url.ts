/**
 * The check of an outbound URL as it is written (when a destination is saved, and at every
 * hop before connecting): http or https, a host, and no address outside the public internet
 * unless allowlisted. Names are checked again once resolved (client.ts), since a name may
 * point anywhere.
 */
import net from "node:net";
import { addressAllowed, currentAllowlist, type OutboundAllowlist } from "./addresses";

export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

/** The host as `net` reads it: brackets off an IPv6 literal, a trailing dot off a name. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();
}

export function checkOutboundUrl(text: string, allowlist: OutboundAllowlist = currentAllowlist()): UrlVerdict {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "is not a valid URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "must use http or https" };
  const host = bareHost(url);
  if (!host) return { ok: false, reason: "has no host" };
  if (allowlist.hosts.has(host)) return { ok: true, url };
  if (net.isIP(host)) {
    return addressAllowed(host, allowlist)
      ? { ok: true, url }
      : { ok: false, reason: `points at a private, loopback or link-local address (${host}); list it in BURROW_OUTBOUND_ALLOWLIST to allow it` };
  }
  // Names that always mean this machine, whatever the resolver says.
  if (host === "localhost" || host.endsWith(".localhost") || host === "localhost.localdomain") {
    return { ok: false, reason: `points at this machine (${host}); list it in BURROW_OUTBOUND_ALLOWLIST to allow it` };
  }
  return { ok: true, url };
}
