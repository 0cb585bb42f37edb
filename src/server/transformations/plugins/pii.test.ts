import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ingestEvent, runPlugin } from "@/test-support/transformations";
import { piiPlugin, REDACTED } from "./pii";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("PII plugin", () => {
  const event = ingestEvent({
    distinctId: "ann@example.com",
    properties: { email: "ann@example.com", phone: 5551234, plan: "pro", name: null, $set: { email: "ann@example.com", name: "Ann" }, $set_once: { phone: "555" } },
  });

  it("hashes the listed properties with the salt, also in $set and $set_once", () => {
    const result = runPlugin(piiPlugin, { properties: ["email", "phone", "name"], salt: "pepper" }, event)!;
    expect(result.properties).toEqual({
      email: sha256("pepperann@example.com"),
      phone: sha256("pepper5551234"),
      plan: "pro",
      name: null,
      $set: { email: sha256("pepperann@example.com"), name: sha256("pepperAnn") },
      $set_once: { phone: sha256("pepper555") },
    });
    expect(result.distinctId).toBe("ann@example.com");
  });

  it("gives equal values equal hashes, and another salt other hashes", () => {
    const a = runPlugin(piiPlugin, { salt: "one" }, event)!;
    const b = runPlugin(piiPlugin, { salt: "two" }, event)!;
    expect(a.properties.email).toBe((a.properties.$set as Record<string, unknown>).email);
    expect(a.properties.email).not.toBe(b.properties.email);
  });

  it("redacts instead of hashing", () => {
    const result = runPlugin(piiPlugin, { properties: ["email"], mode: "redact" }, event)!;
    expect(result.properties.email).toBe(REDACTED);
    expect((result.properties.$set as Record<string, unknown>).email).toBe(REDACTED);
    expect(result.properties.phone).toBe(5551234);
  });

  it("hashes the distinct id when asked", () => {
    expect(runPlugin(piiPlugin, { properties: [], salt: "s", hash_distinct_id: true }, event)!.distinctId).toBe(sha256("sann@example.com"));
  });

  it("makes a random salt per config when none is given", () => {
    const first = piiPlugin.config.parse({});
    const second = piiPlugin.config.parse({});
    expect(first.salt).toMatch(/^[0-9a-f]{32}$/);
    expect(first.salt).not.toBe(second.salt);
  });

  it("returns events without PII unchanged", () => {
    const clean = ingestEvent({ properties: { plan: "pro" } });
    expect(runPlugin(piiPlugin, {}, clean)).toBe(clean);
  });
});
