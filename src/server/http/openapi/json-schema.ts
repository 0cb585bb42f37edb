/**
 * Zod schemas as the OpenAPI document's JSON Schema (2020-12, OpenAPI 3.1's dialect): each
 * conversion's `$defs` — the schemas a contract names with `.meta({ id })`, and recursive
 * parts — move to `components/schemas` and every `$ref` follows them there.
 */
import { z, type ZodType } from "zod";

type Json = Record<string, unknown>;

const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/** Drops what only repeats zod's defaults: safe-integer bounds, and patterns where a `format` says the same. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === "minimum" && value === -SAFE_INTEGER_BOUND) || (key === "maximum" && value === SAFE_INTEGER_BOUND)) continue;
    if (key === "pattern" && typeof (node as Json).format === "string") continue;
    if (key === "$schema" || key === "$id") continue;
    out[key] = tidy(value);
  }
  return out;
}

function rewriteRefs(node: unknown, names: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, names));
  if (typeof node !== "object" || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
      const name = names.get(value.slice("#/$defs/".length));
      if (!name) throw new Error(`unresolved ${value}`);
      out[key] = `#/components/schemas/${name}`;
    } else {
      out[key] = rewriteRefs(value, names);
    }
  }
  return out;
}

export class SchemaCollector {
  readonly components: Record<string, Json> = {};

  /**
   * `schema` as JSON Schema for the document: `io` "input" for what clients send (defaults
   * optional), "output" for answers. `context` names anonymous `$defs` (`DashboardCreate_1`);
   * named ones keep their id, with `Input` added on the input side.
   */
  convert(schema: ZodType, io: "input" | "output", context: string): Json {
    const converted = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any", cycles: "ref", reused: "inline" }) as Json;
    const defs = (converted.$defs ?? {}) as Record<string, Json>;
    delete converted.$defs;
    const names = new Map<string, string>();
    for (const id of Object.keys(defs)) {
      const anonymous = id.startsWith("__");
      names.set(id, anonymous ? `${context}_${names.size + 1}` : io === "input" ? `${id}Input` : id);
    }
    for (const [id, def] of Object.entries(defs)) this.add(names.get(id)!, tidy(rewriteRefs(def, names)) as Json);
    return tidy(rewriteRefs(converted, names)) as Json;
  }

  /** A named schema as a `$ref` (it becomes a component even where zod would inline it). */
  ref(schema: ZodType, io: "input" | "output", context: string): Json {
    const id = z.globalRegistry.get(schema)?.id;
    const converted = this.convert(schema, io, context);
    if (typeof id !== "string" || "$ref" in converted) return converted;
    const name = io === "input" ? `${id}Input` : id;
    this.add(name, converted);
    return { $ref: `#/components/schemas/${name}` };
  }

  private add(name: string, schema: Json): void {
    const existing = this.components[name];
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) throw new Error(`two different schemas are named ${name} in the OpenAPI document`);
    this.components[name] = schema;
  }
}
