import { describe, expect, it } from "vitest";
import { copyRecord } from "./plugin";
import { piiPlugin } from "./plugins/pii";
import { urlParserPlugin } from "./plugins/url-parser";
import { ingestEvent, runPlugin } from "@/test-support/transformations";

describe("copyRecord", () => {
  it("copies every own property, in order, into a new object", () => {
    const record = { b: 1, a: { nested: true }, c: "x" };
    const copy = copyRecord(record);
    expect(copy).not.toBe(record);
    expect(Object.keys(copy)).toEqual(["b", "a", "c"]);
    expect(copy.a).toBe(record.a);
    copy.d = 1;
    expect(record).not.toHaveProperty("d");
  });

  it("keeps a __proto__ key from JSON an own property, not the copy's prototype", () => {
    const record = JSON.parse('{"x": 1, "__proto__": {"polluted": true}}') as Record<string, unknown>;
    const copy = copyRecord(record);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(["x", "__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("plugins on events with a __proto__ property", () => {
  const properties = JSON.parse('{"$current_url": "https://example.com/a?b=1", "email": "a@example.com", "__proto__": {"polluted": true}}') as Record<string, unknown>;

  it("url parser and PII keep it a plain property", () => {
    const parsed = runPlugin(urlParserPlugin, {}, ingestEvent({ properties }))!;
    const hashed = runPlugin(piiPlugin, { properties: ["email"], salt: "s" }, parsed)!;
    for (const result of [parsed, hashed]) {
      expect(Object.getPrototypeOf(result.properties)).toBe(Object.prototype);
      expect(Object.prototype.hasOwnProperty.call(result.properties, "__proto__")).toBe(true);
    }
    expect(hashed.properties.url_host).toBe("example.com");
    expect(hashed.properties.email).toMatch(/^[0-9a-f]{64}$/);
  });
});
