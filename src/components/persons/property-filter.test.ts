import { describe, expect, it } from "vitest";
import { isEmptyValue, visibleProperties } from "./property-filter";

describe("a person's listed properties", () => {
  const properties = { utm_source: null, $initial_gclid: "", email: "ann@example.com", plan: "pro", tags: [], meta: {}, age: 0, flag: false, nested: { a: "Pro" } };

  it("hides empty values (null, '', [], {}) but not 0 or false", () => {
    expect(["utm_source", "$initial_gclid", "tags", "meta"].every((key) => isEmptyValue(properties[key as keyof typeof properties]))).toBe(true);
    expect(isEmptyValue(0) || isEmptyValue(false)).toBe(false);
    const { shown, hiddenEmpty } = visibleProperties(properties, "", false);
    expect(shown.map(([key]) => key)).toEqual(["age", "email", "flag", "nested", "plan"]);
    expect(hiddenEmpty).toBe(4);
    expect(visibleProperties(properties, "", true).shown).toHaveLength(9);
  });

  it("searches names and values, any case", () => {
    expect(visibleProperties(properties, "PRO", false).shown.map(([key]) => key)).toEqual(["nested", "plan"]);
    expect(visibleProperties(properties, "utm", false)).toEqual({ shown: [], hiddenEmpty: 1 });
    expect(visibleProperties(properties, "example.com", false).shown).toEqual([["email", "ann@example.com"]]);
  });
});
