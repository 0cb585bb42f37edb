import { describe, expect, it } from "vitest";
import { embeddedIpv4, isNonPublicAddress, parseAllowlist } from "./addresses";
import { checkOutboundUrl } from "./url";

const none = parseAllowlist("");

/** Every spelling of a non-public address a destination URL could carry. */
const REFUSED: ReadonlyArray<[string, string]> = [
  ["http://127.0.0.1/", "dotted loopback"],
  ["http://127.0.0.1:8080/hook", "loopback with port"],
  ["http://127.1/", "short dotted"],
  ["http://2130706433/", "decimal"],
  ["http://0x7f000001/", "hex"],
  ["http://0x7f.0x0.0x0.0x1/", "hex per part"],
  ["http://0x7f.1/", "hex short"],
  ["http://0177.0.0.1/", "octal"],
  ["http://017700000001/", "octal whole"],
  ["http://0/", "zero"],
  ["http://0.0.0.0/", "unspecified"],
  ["http://[::1]/", "IPv6 loopback"],
  ["http://[0:0:0:0:0:0:0:1]/", "IPv6 loopback long"],
  ["http://[::]/", "IPv6 unspecified"],
  ["http://[::ffff:127.0.0.1]/", "IPv4-mapped"],
  ["http://[::ffff:7f00:1]/", "IPv4-mapped hex"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]/", "IPv4-mapped long"],
  ["http://[::ffff:169.254.169.254]/", "IPv4-mapped metadata"],
  ["http://[::127.0.0.1]/", "IPv4-compatible"],
  ["http://[64:ff9b::127.0.0.1]/", "NAT64"],
  ["http://[2002:7f00:1::]/", "6to4"],
  ["http://10.0.0.1/", "10/8"],
  ["http://172.16.5.4/", "172.16/12"],
  ["http://172.31.255.255/", "172.16/12 top"],
  ["http://192.168.1.1/", "192.168/16"],
  ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
  ["http://100.64.0.1/", "CGNAT"],
  ["http://224.0.0.1/", "multicast"],
  ["http://255.255.255.255/", "broadcast"],
  ["http://[fe80::1]/", "IPv6 link-local"],
  ["http://[fc00::1]/", "IPv6 unique local"],
  ["http://[fd12:3456::1]/", "IPv6 unique local fd"],
  ["http://[ff02::1]/", "IPv6 multicast"],
  ["http://localhost/", "localhost"],
  ["http://LOCALHOST./", "localhost upper-case, trailing dot"],
  ["http://api.localhost/", "a .localhost name"],
  ["http://user:pw@127.0.0.1/", "credentials before loopback"],
  ["ftp://example.com/", "not http"],
  ["file:///etc/passwd", "file"],
  ["javascript:alert(1)", "javascript"],
  ["not a url", "not a URL"],
  ["http://", "no host"],
];

const ALLOWED: readonly string[] = [
  "https://example.com/hook",
  "http://93.184.216.34/",
  "http://8.8.8.8:8080/x",
  "http://[2606:4700:4700::1111]/",
  "http://172.32.0.1/",
  "http://11.0.0.1/",
  "https://hooks.slack.com/services/T/B/X",
];

describe("outbound URL check", () => {
  it.each(REFUSED)("refuses %s (%s)", (url) => {
    expect(checkOutboundUrl(url, none).ok).toBe(false);
  });

  it.each(ALLOWED)("allows %s", (url) => {
    expect(checkOutboundUrl(url, none).ok).toBe(true);
  });

  it("allows a listed address in every spelling, and only that address", () => {
    const list = parseAllowlist("127.0.0.1");
    for (const url of ["http://127.0.0.1:9000/", "http://2130706433/", "http://0x7f000001/", "http://[::ffff:127.0.0.1]/"]) expect(checkOutboundUrl(url, list).ok).toBe(true);
    expect(checkOutboundUrl("http://127.0.0.2/", list).ok).toBe(false);
    expect(checkOutboundUrl("http://[::1]/", list).ok).toBe(false);
  });

  it("allows listed CIDRs and hosts", () => {
    const list = parseAllowlist(" 10.0.0.0/8 , localhost, [::1], sink.internal ");
    expect(checkOutboundUrl("http://10.1.2.3/", list).ok).toBe(true);
    expect(checkOutboundUrl("http://11.0.0.1/", list).ok).toBe(true);
    expect(checkOutboundUrl("http://192.168.0.1/", list).ok).toBe(false);
    expect(checkOutboundUrl("http://localhost:3000/", list).ok).toBe(true);
    expect(checkOutboundUrl("http://[::1]/", list).ok).toBe(true);
    expect(checkOutboundUrl("http://SINK.internal/", list).ok).toBe(true);
  });

  it("refuses a malformed allowlist instead of guessing", () => {
    expect(() => parseAllowlist("10.0.0.0/40")).toThrow(/CIDR/);
    expect(() => parseAllowlist("http://x/")).toThrow(/neither/);
    expect(() => parseAllowlist("300.1.1.1/8")).toThrow(/CIDR/);
  });
});

describe("addresses", () => {
  it("reads the IPv4 address IPv6 forms carry", () => {
    expect(embeddedIpv4("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(embeddedIpv4("::ffff:10.0.0.1")).toBe("10.0.0.1");
    expect(embeddedIpv4("2002:0a00:0001::1")).toBe("10.0.0.1");
    expect(embeddedIpv4("64:ff9b::c0a8:0101")).toBe("192.168.1.1");
    expect(embeddedIpv4("2606:4700::1111")).toBeNull();
  });

  it("classifies resolved addresses", () => {
    expect(isNonPublicAddress("127.0.0.1")).toBe(true);
    expect(isNonPublicAddress("::ffff:192.168.0.1")).toBe(true);
    expect(isNonPublicAddress("fe80::1%eth0")).toBe(true);
    expect(isNonPublicAddress("1.1.1.1")).toBe(false);
    expect(isNonPublicAddress("::ffff:1.1.1.1")).toBe(false);
    expect(isNonPublicAddress("not-an-address")).toBe(true);
  });
});
