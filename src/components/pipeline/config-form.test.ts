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
