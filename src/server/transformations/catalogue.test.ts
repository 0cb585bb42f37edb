import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors";
import { BUILTIN_PLUGINS, builtinPlugin, configFields, parsePluginConfig, secretKeys } from "./catalogue";
import { ingestEvent } from "@/test-support/transformations";

describe("the built-in plugin catalogue", () => {
  it("has the plugins issue 8 asks for, with unique keys", () => {
    expect(BUILTIN_PLUGINS.map((plugin) => plugin.key)).toEqual([
      "drop-events",
      "property-filter",
      "rename",
      "flatten",
      "pii",
      "add-properties",
      "geoip",
      "url-parser",
      "user-agent",
    ]);
    expect(builtinPlugin("rename")?.name).toBe("Rename and standardise names");
    expect(builtinPlugin("nope")).toBeNull();
  });

  for (const plugin of BUILTIN_PLUGINS) {
    describe(plugin.key, () => {
      it("accepts an empty config (every field has a default), and its stored form parses to itself", () => {
        const stored = parsePluginConfig(plugin, {});
        expect(Object.keys(stored).sort()).toEqual(Object.keys(plugin.config.shape).sort());
        const again = JSON.parse(JSON.stringify(stored)) as Record<string, unknown>;
        expect(parsePluginConfig(plugin, again)).toEqual(stored);
      });

      it("describes every config field in its form", () => {
        const fields = configFields(plugin);
        expect(fields.map((field) => field.key)).toEqual(Object.keys(plugin.config.shape));
        for (const field of fields) {
          expect(field.name).not.toBe(field.key);
          expect(field.hint).toBeTruthy();
          if (field.type === "choice") expect(field.choices!.length).toBeGreaterThan(1);
          if (field.secret) expect(field).not.toHaveProperty("default");
        }
      });

      it("never changes the event it is given (the input is frozen) with its default config", () => {
        const transform = plugin.build(parsePluginConfig(plugin, {}) as never);
        const event = ingestEvent({
          properties: {
            $ip: "8.8.8.8",
            $current_url: "https://example.com/a?b=c",
            $raw_user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
            email: "a@example.com",
            nested: { deep: { value: 1 } },
            $set: { email: "a@example.com" },
          },
        });
        const before = JSON.stringify(event);
        expect(() => transform(event)).not.toThrow();
        expect(JSON.stringify(event)).toBe(before);
      });
    });
  }

  it("rejects unknown fields and bad values with the field as attr", () => {
    const flatten = builtinPlugin("flatten")!;
    const attempt = (config: unknown) => {
      try {
        parsePluginConfig(flatten, config);
        return null;
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return { message: (error as AppError).message, attr: (error as AppError).attr };
      }
    };
    expect(attempt({ separator: "" })).toEqual({ message: "separator: the separator must not be empty.", attr: "config__separator" });
    expect(attempt({ keep_nested: "no" })).toMatchObject({ attr: "config__keep_nested" });
    expect(attempt({ sepparator: "." })).toMatchObject({ attr: "config__sepparator", message: expect.stringContaining("Unknown config field 'sepparator'") });
    expect(attempt([])).toMatchObject({ attr: "config" });
    expect(attempt({ separator: "." })).toBeNull();
  });

  it("marks the PII salt secret", () => {
    expect(secretKeys(builtinPlugin("pii")!)).toEqual(["salt"]);
    expect(secretKeys(builtinPlugin("flatten")!)).toEqual([]);
  });
});
