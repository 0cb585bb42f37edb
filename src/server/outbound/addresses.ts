/**
 * Which addresses an outbound request may reach. Private, loopback, link-local and other
 * non-public ranges are refused unless BURROW_OUTBOUND_ALLOWLIST names them (a host or a
 * CIDR): a destination URL must not become a way into the server's own network.
 *
 * Every spelling of an address ends here as the canonical text `net` understands: the WHATWG
 * URL parser already turns `http://2130706433/`, `http://0x7f.1/` and `http://0177.0.0.1/`
 * into `127.0.0.1`, and IPv6 forms embedding an IPv4 address (mapped `::ffff:a.b.c.d`,
 * compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are checked as that IPv4 address.
 */
import net from "node:net";

const FORBIDDEN_V4: ReadonlyArray<[string, number]> = [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];
const FORBIDDEN_V6: ReadonlyArray<[string, number]> = [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
  ["100::", 64], // discard
  ["2001:db8::", 32], // documentation
];

const forbidden = new net.BlockList();
for (const [address, prefix] of FORBIDDEN_V4) forbidden.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of FORBIDDEN_V6) forbidden.addSubnet(address, prefix, "ipv6");

/** The 16 bytes of an IPv6 address (net.isIPv6 already said it is one). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  // A trailing dotted IPv4 part becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...(tail === null ? [] : Array(missing).fill("0")), ...tailGroups].map((g) => parseInt(g || "0", 16));
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const v4 = (at: number) => b.slice(at, at + 4).join(".");
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zeros(0, 12) && !zeros(12, 16)) return v4(12); // ::a.b.c.d (deprecated "compatible")
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2); // 2002:AABB:CCDD::/16
  return null;
}

/** Whether an IP address (v4 or v6 text) is outside the public internet. */
export function isNonPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return forbidden.check(address, "ipv4");
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== null && forbidden.check(inner, "ipv4")) return true;
    return forbidden.check(address.replace(/%.*$/, ""), "ipv6");
  }
  // Not an address at all: refuse rather than guess.
  return true;
}

/** BURROW_OUTBOUND_ALLOWLIST: hosts (names or addresses) and CIDRs an outbound request may reach even when non-public. */
export interface OutboundAllowlist {
  hosts: ReadonlySet<string>;
  networks: net.BlockList;
  /** The entries as written, for messages. */
  entries: readonly string[];
}

export class AllowlistError extends Error {
  override name = "AllowlistError";
}

/** Parses the comma-separated list; a malformed entry is an error (a typo must not silently allow nothing, or everything). */
export function parseAllowlist(text: string | undefined): OutboundAllowlist {
  const hosts = new Set<string>();
  const networks = new net.BlockList();
  const entries = (text ?? "")
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
  for (const entry of entries) {
    const cidr = /^(.+)\/(\d{1,3})$/.exec(entry);
    const bare = entry.replace(/^\[(.*)\]$/, "$1");
    if (cidr) {
      const address = cidr[1]!.replace(/^\[(.*)\]$/, "$1");
      const family = net.isIP(address);
      const prefix = Number(cidr[2]);
      if (family === 0 || prefix > (family === 4 ? 32 : 128)) throw new AllowlistError(`BURROW_OUTBOUND_ALLOWLIST: "${entry}" is not a CIDR.`);
      networks.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
    } else if (net.isIP(bare)) {
      networks.addAddress(bare, net.isIP(bare) === 4 ? "ipv4" : "ipv6");
      hosts.add(bare);
    } else if (/^[a-z0-9._-]+$/.test(entry)) {
      hosts.add(entry.replace(/\.$/, ""));
    } else {
      throw new AllowlistError(`BURROW_OUTBOUND_ALLOWLIST: "${entry}" is neither a host nor a CIDR.`);
    }
  }
  return { hosts, networks, entries };
}

/** Whether an address is allowed: public, or listed (itself, or its embedded IPv4 address). */
export function addressAllowed(address: string, allowlist: OutboundAllowlist): boolean {
  if (!isNonPublicAddress(address)) return true;
  const family = net.isIP(address);
  if (family === 0) return false;
  const clean = address.replace(/%.*$/, "");
  if (allowlist.networks.check(clean, family === 4 ? "ipv4" : "ipv6")) return true;
  const inner = family === 6 ? embeddedIpv4(clean) : null;
  return inner !== null && allowlist.networks.check(inner, "ipv4");
}

let cached: { text: string | undefined; list: OutboundAllowlist } | null = null;

/** The allowlist of the environment, read again when the variable changes (tests set it). */
export function currentAllowlist(env: NodeJS.ProcessEnv = process.env): OutboundAllowlist {
  const text = env.BURROW_OUTBOUND_ALLOWLIST;
  if (!cached || cached.text !== text) cached = { text, list: parseAllowlist(text) };
  return cached.list;
}
