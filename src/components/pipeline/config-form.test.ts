import { describe, expect, it } from "vitest";
import { BUILTIN_PLUGINS, configFields, parsePluginConfig } from "@/server/transformations/catalogue";
import { configFromValues, initialValues } from "./config-form";

describe("the generated config form", () => {
  for (const plugin of BUILTIN_PLUGINS) {
    it(`${plugin.key}: a stored config survives the form unchanged (secrets aside)`, () => {
      const fields = configFields(plugin);
      const stored = parsePluginConfig(plugin, {});
      const { config, errors } = configFromValues(fields, initialValues(fields, stored));
      expect(errors).toEqual({});
      const secrets = fields.filter((field) => field.secret).map((field) => field.key);
      const expected = Object.fromEntries(Object.entries(stored).filter(([key]) => !secrets.includes(key)));
      expect(parsePluginConfig(plugin, { ...config, ...Object.fromEntries(secrets.map((key) => [key, stored[key]])) })).toEqual(stored);
      expect(Object.keys(config).sort()).toEqual(Object.keys(expected).sort());
    });
  }

  it("reads lists one per line and JSON fields as JSON, reporting bad JSON by field", () => {
    const fields = configFields(BUILTIN_PLUGINS.find((plugin) => plugin.key === "drop-events")!);
    const values = { events: " a \n\n b\n", properties: "[{\"key\": \"x\", \"value\": 1}]" };
    expect(configFromValues(fields, values)).toEqual({ config: { events: ["a", "b"], properties: [{ key: "x", value: 1 }] }, errors: {} });
    expect(configFromValues(fields, { events: "", properties: "[{" }).errors).toEqual({ properties: expect.stringMatching(/^Not valid JSON/) });
  });

  it("starts secrets empty and leaves an empty secret out", () => {
    const fields = configFields(BUILTIN_PLUGINS.find((plugin) => plugin.key === "pii")!);
    const values = initialValues(fields, { salt: "hidden", mode: "redact" });
    expect(values.salt).toBe("");
    expect(values.mode).toBe("redact");
    expect(configFromValues(fields, values).config).not.toHaveProperty("salt");
    expect(configFromValues(fields, { ...values, salt: "new" }).config.salt).toBe("new");
  });
});

describe("object fields as rows of name and value", () => {
  const addProperties = configFields(BUILTIN_PLUGINS.find((plugin) => plugin.key === "add-properties")!);
  const rename = configFields(BUILTIN_PLUGINS.find((plugin) => plugin.key === "rename")!);

  it("are marked in the schema by what their values are", () => {
    expect(addProperties.find((field) => field.key === "properties")).toMatchObject({ type: "json", entries: "json" });
    expect(rename.find((field) => field.key === "event_renames")).toMatchObject({ type: "json", entries: "text" });
  });

  it("round-trip every kind of value exactly, strings that look like JSON included", () => {
    const stored = parsePluginConfig(BUILTIN_PLUGINS.find((plugin) => plugin.key === "add-properties")!, {
      properties: { env: "production", n: 42, on: true, nested: { a: [1] }, looks_numeric: "42", nothing: null },
    });
    const values = initialValues(addProperties, stored);
    expect(values.properties).toEqual([
      { key: "env", value: "production" },
      { key: "n", value: "42" },
      { key: "on", value: "true" },
      { key: "nested", value: '{"a":[1]}' },
      { key: "looks_numeric", value: '"42"' },
      { key: "nothing", value: "null" },
    ]);
    expect(configFromValues(addProperties, values).config.properties).toEqual(stored.properties);
  });

  it("leave unnamed rows out, keep text values as typed, and report a name given twice", () => {
    const renames = configFromValues(rename, { ...initialValues(rename, null), event_renames: [{ key: " signup ", value: "42" }, { key: "", value: "x" }] });
    expect(renames.config.event_renames).toEqual({ signup: "42" });
    const twice = configFromValues(rename, { ...initialValues(rename, null), property_renames: [{ key: "a", value: "b" }, { key: "a", value: "c" }] });
    expect(twice.errors).toEqual({ property_renames: "'a' is named twice." });
  });
});
