import { describe, expect, it } from "vitest";
import { ChunkSizer } from "./chunks";

describe("ChunkSizer", () => {
  it("grows at most twofold towards the target, shrinks at once, and keeps to its bounds", () => {
    const sizer = new ChunkSizer(100, 10, 1_000, 10);
    sizer.took(1, 100); // 0.01 ms a row: 1,000 would take 10 ms, but it only doubles
    expect(sizer.size).toBe(200);
    sizer.took(2, 200);
    expect(sizer.size).toBe(400);
    sizer.took(4, 400);
    expect(sizer.size).toBe(800);
    sizer.took(8, 800);
    expect(sizer.size).toBe(1_000);
    // Ten times slower a row: the smoothed cost (0.7 × 0.01 + 0.3 × 0.1) cuts the next chunk to ~270.
    sizer.took(100, 1_000);
    expect(sizer.size).toBe(270);
    for (let i = 0; i < 20; i++) sizer.took(sizer.size * 5, sizer.size);
    expect(sizer.size).toBe(10);
  });

  it("a fixed size stays fixed", () => {
    const sizer = new ChunkSizer(10_000, 10_000, 10_000);
    sizer.took(5_000, 10_000);
    expect(sizer.size).toBe(10_000);
  });
});
