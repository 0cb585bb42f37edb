import { z } from "zod";
import type { IngestEvent } from "@/server/ingestion/contract";
import { copyRecord, definePlugin, field, isPlainObject, propertyNameList, setOwn, withProperties } from "../plugin";

/** Where person properties ride on an event: removed there too, so they do not reach the person. */
const PERSON_SETS = ["$set", "$set_once"] as const;

/** A copy of `record` without `path` (a key, or a dotted path into nested objects); `record` itself when absent. */
function without(record: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const [head, ...rest] = path;
  if (head === undefined || !Object.prototype.hasOwnProperty.call(record, head)) return record;
  if (rest.length === 0) {
    const { [head]: _removed, ...kept } = record;
    return kept;
  }
  const inner = record[head];
  if (!isPlainObject(inner)) return record;
  const changed = without(inner, rest);
  if (changed === inner) return record;
  const copy = copyRecord(record);
  setOwn(copy, head, changed);
  return copy;
}

/** A name as a path: the exact key when the record has it, else split at dots ("a.b" is b inside a). */
function pathIn(record: Record<string, unknown>, name: string): string[] {
  return Object.prototype.hasOwnProperty.call(record, name) || !name.includes(".") ? [name] : name.split(".");
}

function removeAll(record: Record<string, unknown>, names: string[]): Record<string, unknown> {
  let result = record;
  for (const name of names) result = without(result, pathIn(result, name));
  return result;
}

export const propertyFilterPlugin = definePlugin({
  key: "property-filter",
  name: "Property filter",
  description:
    "Removes the listed properties from events (and from the person properties they set with $set / $set_once). A dotted name such as \"address.street\" removes a nested property.",
  config: z.object({
    properties: propertyNameList.default([]).meta(field("Properties to remove", "One name per line; \"a.b\" removes b inside a.")),
  }),
  build(config) {
    const names = config.properties;
    if (names.length === 0) return (event) => event;
    return (event: IngestEvent) => {
      let properties = removeAll(event.properties, names);
      for (const key of PERSON_SETS) {
        const set = properties[key];
        if (!isPlainObject(set)) continue;
        const changed = removeAll(set, names);
        if (changed === set) continue;
        // properties is either the event's own (copy it) or already a copy made above.
        if (properties === event.properties) properties = copyRecord(properties);
        setOwn(properties, key, changed);
      }
      return properties === event.properties ? event : withProperties(event, properties);
    };
  },
});
