/**
 * What a built-in transformation plugin is: a zod config schema (the authority for
 * validation, defaults and the generated config form) and a `build` that turns a parsed
 * config into a transform over one event.
 *
 * Transforms are pure: they never change the event they are given, they return it as it
 * is (nothing to do), a new event (changed), or null (drop it). The chain runner relies on
 * this: when a transform throws, the event it was given is still the unchanged input, and
 * the chain goes on with it.
 */
import { z } from "zod";
import type { IngestEvent } from "@/server/ingestion/contract";

export type Transform = (event: IngestEvent) => IngestEvent | null;

/** A config schema: an object whose every field has a default, so `{}` is a valid config. */
export type ConfigSchema = z.ZodObject<z.ZodRawShape>;

export interface TransformationPlugin<Schema extends ConfigSchema = ConfigSchema> {
  /** Stable identifier, the `plugins.key` of the seeded row. */
  key: string;
  name: string;
  description: string;
  config: Schema;
  build(config: z.output<Schema>): Transform;
}

/** Declares a plugin with its config type inferred from the schema. */
export function definePlugin<Schema extends ConfigSchema>(plugin: TransformationPlugin<Schema>): TransformationPlugin {
  return plugin as unknown as TransformationPlugin;
}

/** Form metadata of a config field (zod `.meta`): its label, a hint, and whether it is a secret. */
export function field(title: string, description: string, options: { secret?: boolean } = {}) {
  return { title, description, ...(options.secret ? { secret: true } : {}) };
}

/** The event with other properties (a new object: the input stays as it was). */
export function withProperties(event: IngestEvent, properties: Record<string, unknown>): IngestEvent {
  return { ...event, properties };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A shallow copy to add properties to. `Object.assign` copies a JSON object's properties in
 * one go (a spread copy is faster still, but V8 sizes it exactly, and adding properties to it
 * then costs microseconds per event). Assign would run the `__proto__` setter for an own
 * "__proto__" key (JSON.parse makes those), so such a record is copied key by key.
 */
export function copyRecord(record: Record<string, unknown>): Record<string, unknown> {
  if (!Object.prototype.hasOwnProperty.call(record, "__proto__")) return Object.assign({}, record);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) setOwn(copy, key, record[key]);
  return copy;
}

/** Sets `key` on a record built by a transform; a "__proto__" key stays a plain property (defineProperty). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A list of property or event names: at most 1000, each at most 400 characters. */
export const propertyNameList = z
  .array(z.string().min(1, "names must not be empty.").max(400, "names must be at most 400 characters."))
  .max(1000, "at most 1000 names.");
