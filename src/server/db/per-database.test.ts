import { describe, expect, it } from "vitest";
import { perDatabase } from "./per-database";

describe("perDatabase", () => {
  it("makes one instance per handle, each handle its own", () => {
    let made = 0;
    const counterOf = perDatabase((_: object) => ({ n: ++made }));
    const a = {};
    const b = {};
    expect([counterOf(a), counterOf(a), counterOf(b)]).toEqual([{ n: 1 }, { n: 1 }, { n: 2 }]);
    expect(counterOf(a)).toBe(counterOf(a));
  });

  it("shares the instances of one name between two copies of a module", () => {
    const name = `burrow.test.${Math.random()}`;
    const first = perDatabase((_: object) => ({ copy: "first" }), name);
    const second = perDatabase((_: object) => ({ copy: "second" }), name);
    const handle = {};
    expect(second(handle)).toBe(first(handle));
    expect(first(handle)).toEqual({ copy: "second" });
    // Unnamed ones are each module's own.
    const own = perDatabase((_: object) => ({ copy: "own" }));
    expect(own(handle)).toEqual({ copy: "own" });
  });
});
