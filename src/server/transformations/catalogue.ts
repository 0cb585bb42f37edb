/**
 * The built-in transformation plugins, and what is derived from their zod config schemas:
 * the config form (`config_schema`, PostHog's list-of-fields shape) and config validation.
 *
 * The `plugins` rows are seeded by a migration (prisma/migrations/20261122050000_…) so
 * every database has them with stable ids; catalogue.int.test.ts fails when a plugin here
 * and its row disagree (then write a migration that updates the row).
 */
import { z } from "zod";
import { AppError } from "@/server/errors";
import type { TransformationPlugin } from "./plugin";
import { addPropertiesPlugin } from "./plugins/add-properties";
import { dropEventsPlugin } from "./plugins/drop-events";
import { flattenPlugin } from "./plugins/flatten";
import { geoIpPlugin } from "./plugins/geoip";
import { piiPlugin } from "./plugins/pii";
import { propertyFilterPlugin } from "./plugins/property-filter";
import { renamePlugin } from "./plugins/rename";
import { urlParserPlugin } from "./plugins/url-parser";
import { userAgentPlugin } from "./plugins/user-agent";

/** In the order of their seeded ids. */
export const BUILTIN_PLUGINS: readonly TransformationPlugin[] = [
  dropEventsPlugin,
  propertyFilterPlugin,
  renamePlugin,
  flattenPlugin,
  piiPlugin,
  addPropertiesPlugin,
  geoIpPlugin,
  urlParserPlugin,
  userAgentPlugin,
];

const BY_KEY = new Map(BUILTIN_PLUGINS.map((plugin) => [plugin.key, plugin]));

export function builtinPlugin(key: string): TransformationPlugin | null {
  return BY_KEY.get(key) ?? null;
}

/** Jobs every built-in plugin has (`POST …/:id/job/`). */
export const PLUGIN_JOBS = ["dry_run"] as const;

/** `plugins.capabilities`: a transformation (processEvent) with the dry-run job. */
export const BUILTIN_CAPABILITIES = { methods: ["processEvent"], jobs: [...PLUGIN_JOBS] };

export type ConfigFieldType = "string" | "choice" | "boolean" | "list" | "json";

/** One field of a plugin's config form (PostHog's `config_schema` entries, plus `boolean` and `list`). */
export interface ConfigField {
  key: string;
  name: string;
  type: ConfigFieldType;
  /** The default a form starts with; absent for secrets. */
  default?: unknown;
  hint: string | null;
  required: false;
  secret: boolean;
  choices?: string[];
  /**
   * A "json" field that is an object of name → value entries (renames, properties to set):
   * the form edits it as rows; "text" values are strings, "json" values any JSON. Absent
   * for other JSON. (An addition to PostHog's config_schema, whose type stays "json".)
   */
  entries?: "text" | "json";
}

interface JsonSchemaProperty {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: string[];
  items?: { type?: string };
  additionalProperties?: boolean | { type?: string };
  secret?: boolean;
}

function entriesOf(property: JsonSchemaProperty): ConfigField["entries"] {
  if (property.type !== "object" || typeof property.additionalProperties !== "object") return undefined;
  return property.additionalProperties.type === "string" ? "text" : "json";
}

function fieldType(property: JsonSchemaProperty): ConfigFieldType {
  if (property.enum) return "choice";
  if (property.type === "boolean") return "boolean";
  if (property.type === "string") return "string";
  if (property.type === "array" && property.items?.type === "string") return "list";
  return "json";
}

const formCache = new WeakMap<TransformationPlugin, ConfigField[]>();

/** The config form of a plugin, derived from its zod schema (titles and hints from `.meta`); computed once. */
export function configFields(plugin: TransformationPlugin): ConfigField[] {
  let fields = formCache.get(plugin);
  if (!fields) {
    fields = deriveFields(plugin);
    formCache.set(plugin, fields);
  }
  return fields;
}

function deriveFields(plugin: TransformationPlugin): ConfigField[] {
  const schema = z.toJSONSchema(plugin.config, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, JsonSchemaProperty> };
  return Object.entries(schema.properties ?? {}).map(([key, property]) => {
    const secret = property.secret === true;
    return {
      key,
      name: property.title ?? key,
      type: fieldType(property),
      ...(secret || property.default === undefined ? {} : { default: property.default }),
      hint: property.description ?? null,
      required: false as const,
      secret,
      ...(property.enum ? { choices: property.enum } : {}),
      ...(entriesOf(property) ? { entries: entriesOf(property) } : {}),
    };
  });
}

/** The names of a plugin's secret fields (masked in answers, kept when a write leaves them out). */
export function secretKeys(plugin: TransformationPlugin): string[] {
  return configFields(plugin)
    .filter((item) => item.secret)
    .map((item) => item.key);
}

/**
 * A config checked against the plugin's schema, defaults filled in: what is stored. A
 * problem is a 400 naming the field (`config__<field>`).
 */
export function parsePluginConfig(plugin: TransformationPlugin, config: unknown): Record<string, unknown> {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new AppError("invalid_input", "config must be a JSON object.", "config");
  }
  const known = new Set(Object.keys(plugin.config.shape));
  const unknown = Object.keys(config).find((key) => !known.has(key));
  if (unknown !== undefined) {
    throw new AppError("invalid_input", `Unknown config field '${unknown}' for plugin '${plugin.name}'; fields: ${[...known].join(", ")}.`, `config__${unknown}`);
  }
  const parsed = plugin.config.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const attr = ["config", ...issue.path.map(String)].join("__");
    const fieldName = issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : "";
    throw new AppError("invalid_input", `${fieldName}${issue.message}`, attr);
  }
  return parsed.data as Record<string, unknown>;
}
