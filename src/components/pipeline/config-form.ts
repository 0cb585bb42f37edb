/**
 * The config form of a transformation, generated from its plugin's `config_schema`
 * (src/server/transformations/catalogue.ts): form values from a stored config, and a
 * config from form values (lists one per line, JSON fields parsed). The server checks the
 * result against the plugin's zod schema; this only turns text into JSON.
 */
import type { ConfigField } from "@/server/transformations/catalogue";

/** One row of an entries field (an object of name → value). */
export interface EntryRow {
  key: string;
  value: string;
}
export type FieldValue = string | boolean | EntryRow[];

/** An entry's value as the form shows it: strings as they are (unless they would read back as other JSON), the rest as JSON. */
function entryText(value: unknown, entries: "text" | "json"): string {
  if (entries === "text" || typeof value !== "string") return typeof value === "string" ? value : JSON.stringify(value);
  return jsonOrNull(value) === undefined ? value : JSON.stringify(value);
}

/** The JSON a text reads as, or undefined when it is not JSON. */
function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
export type FormValues = Record<string, FieldValue>;

/** Form values for `fields`: the stored config's where it has one, else the field's default. Secrets start empty. */
export function initialValues(fields: readonly ConfigField[], config: Record<string, unknown> | null): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = config && field.key in config ? config[field.key] : field.default;
    switch (field.type) {
      case "boolean":
        values[field.key] = value === true;
        break;
      case "list":
        values[field.key] = Array.isArray(value) ? value.map(String).join("\n") : "";
        break;
      case "json":
        if (field.entries) {
          const entries = field.entries;
          const map = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
          values[field.key] = Object.entries(map).map(([key, item]) => ({ key, value: entryText(item, entries) }));
        } else values[field.key] = value === undefined ? "" : JSON.stringify(value, null, 2);
        break;
      default:
        values[field.key] = field.secret || value === undefined || value === null ? "" : String(value);
    }
  }
  return values;
}

/**
 * The config to send, or the fields that are not valid JSON. An empty secret is left out:
 * the server keeps the stored one (or makes one).
 */
export function configFromValues(fields: readonly ConfigField[], values: FormValues): { config: Record<string, unknown>; errors: Record<string, string> } {
  const config: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const value = values[field.key];
    switch (field.type) {
      case "boolean":
        config[field.key] = value === true;
        break;
      case "list":
        config[field.key] = String(value ?? "")
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== "");
        break;
      case "json": {
        if (field.entries) {
          // Rows without a name are left out; a value is JSON when it reads as JSON (42, true, {…}), else text.
          const map: Record<string, unknown> = {};
          for (const row of Array.isArray(value) ? value : []) {
            const key = row.key.trim();
            if (key === "") continue;
            if (key in map) {
              errors[field.key] = `'${key}' is named twice.`;
              break;
            }
            const parsed = field.entries === "json" ? jsonOrNull(row.value.trim()) : undefined;
            map[key] = parsed === undefined ? row.value : parsed;
          }
          config[field.key] = map;
          break;
        }
        const text = String(value ?? "").trim();
        if (text === "") break;
        try {
          config[field.key] = JSON.parse(text);
        } catch (error) {
          errors[field.key] = `Not valid JSON: ${(error as Error).message}`;
        }
        break;
      }
      default:
        if (field.secret && value === "") break;
        config[field.key] = String(value ?? "");
    }
  }
  return { config, errors };
}

/** A sample event for the test panel, touching what the built-in plugins read. */
export const SAMPLE_EVENT = {
  event: "Order Completed",
  distinct_id: "sample-user",
  properties: {
    $current_url: "https://shop.example.com/checkout?utm_source=newsletter&plan=pro",
    $raw_user_agent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
    $ip: "8.8.8.8",
    email: "ann@example.com",
    "Plan Type": "pro",
    address: { city: "Paris", zip: "75001" },
  },
};
