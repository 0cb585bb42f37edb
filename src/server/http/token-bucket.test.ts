import { describe, expect, it } from "vitest";
import { TokenBuckets } from "./token-bucket";

describe("TokenBuckets", () => {
  it("grants the capacity at once, then refuses with the seconds until the next token", () => {
    let now = 0;
    const buckets = new TokenBuckets(3, 60, () => now); // one token a second
    expect([buckets.take("k"), buckets.take("k"), buckets.take("k")]).toEqual([0, 0, 0]);
    expect(buckets.take("k")).toBe(1);
    now += 1000;
    expect(buckets.take("k")).toBe(0);
    expect(buckets.take("k")).toBe(1);
  });

  it("keeps keys apart and never refills above capacity", () => {
    let now = 0;
    const buckets = new TokenBuckets(2, 60, () => now);
    buckets.take("a");
    buckets.take("a");
    expect(buckets.take("b")).toBe(0);
    now += 3_600_000;
    expect([buckets.take("a"), buckets.take("a"), buckets.take("a")]).toEqual([0, 0, 1]);
  });
});
