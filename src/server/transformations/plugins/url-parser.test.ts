import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { urlParserPlugin, urlParts } from "./url-parser";

describe("URL parser plugin", () => {
  const event = ingestEvent({ properties: { $current_url: "https://shop.example.com:8443/cart/items?utm_source=news&tag=a&tag=b#top", other: "http://x.test/y" } });

  it("splits $current_url into protocol, host, path, hash and params", () => {
    const result = runPlugin(urlParserPlugin, {}, event)!;
    expect(result.properties).toMatchObject({
      url_protocol: "https",
      url_host: "shop.example.com:8443",
      url_path: "/cart/items",
      url_hash: "top",
      url_params: { utm_source: "news", tag: ["a", "b"] },
    });
  });

  it("reads another property with another prefix", () => {
    const result = runPlugin(urlParserPlugin, { source: "other", prefix: "other_" }, event)!;
    expect(result.properties).toMatchObject({ other_host: "x.test", other_path: "/y", other_params: {}, other_hash: "" });
    expect(result.properties).not.toHaveProperty("url_host");
  });

  it("passes events without a valid absolute URL unchanged", () => {
    for (const value of [undefined, "not a url", "/relative/path", 42]) {
      const e = ingestEvent({ properties: value === undefined ? {} : { $current_url: value } });
      expect(runPlugin(urlParserPlugin, {}, e)).toBe(e);
    }
  });
});

describe("urlParts", () => {
  it("agrees with WHATWG URL on simple and tricky URLs", () => {
    const urls = [
      "https://example.com",
      "https://example.com/",
      "http://a.b.example.com/x/y/z?q=1&q=2&r=%20s&t=a+b#frag",
      "https://shop.example.com/cart?utm_source=news",
      "https://example.com/a/../b",
      "https://example.com/./a",
      "https://EXAMPLE.com/A",
      "https://example.com:443/x",
      "http://example.com:8080/x",
      "https://example.com/ä?ö=ü#ß",
      "https://example.com/a b",
      "https://example.com/%zz",
      "https://example.com/%41?x=%41",
      "https://example.com?only=query",
      "https://example.com#only-hash",
      "https://example.com/path;params?x=[1]",
      "https://user:pw@example.com/x",
      "ftp://example.com/file",
      "mailto:someone@example.com",
      "https://xn--bcher-kva.example/",
      "https://example.com/q?a=1#h?x/y",
      "http://0x7f.1/",
      "https://example.com/a/b.html",
      "https://example.com/a/.hidden/..b",
      "https://example.com/a/b/..",
      "https://example.com/a/b/.",
      "https://example.com/a/%2e%2E/b",
      "https://example.com/a/.%2e/b",
      "http://1.2.3/",
      "http://127.0.0.1/x",
      "https://a-b.example.com./x",
    ];
    for (const raw of urls) {
      const url = new URL(raw);
      const parts = urlParts(raw)!;
      expect({ raw, protocol: parts.protocol, host: parts.host, path: parts.pathname, hash: parts.hash, params: [...parts.searchParams] }).toEqual({
        raw,
        protocol: url.protocol.replace(/:$/, ""),
        host: url.host,
        path: url.pathname,
        hash: url.hash.replace(/^#/, ""),
        params: [...url.searchParams],
      });
    }
    expect(urlParts("not a url")).toBeNull();
    expect(urlParts("http://example.123/")).toBeNull(); // WHATWG refuses a numeric last label that is no IPv4
    expect(urlParts("/relative")).toBeNull();
  });
});
