import { describe, expect, it } from "vitest";
import { isSealed, maskedSecret, openSecret, sealSecret } from "./secrets";

describe("sealed secrets", () => {
  it("round-trips, never stores the plain text, and differs each time", () => {
    const a = sealSecret("Bearer sk_live_abcdef123456");
    const b = sealSecret("Bearer sk_live_abcdef123456");
    expect(isSealed(a)).toBe(true);
    expect(a).not.toContain("sk_live");
    expect(a).not.toBe(b);
    expect(openSecret(a)).toBe("Bearer sk_live_abcdef123456");
  });

  it("refuses an altered secret", () => {
    const sealed = sealSecret("token-value");
    const parts = sealed.split(":");
    parts[4] = Buffer.from("other").toString("base64url");
    expect(() => openSecret(parts.join(":"))).toThrow();
    expect(() => openSecret("plain")).toThrow();
  });

  it("masks what it shows", () => {
    expect(maskedSecret("Bearer sk_live_abcdef123456")).toBe("••••3456");
    expect(maskedSecret("short")).toBe("••••");
  });
});
