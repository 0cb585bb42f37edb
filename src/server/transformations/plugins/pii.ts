import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { definePlugin, field, isPlainObject, propertyNameList, setOwn } from "../plugin";

export const REDACTED = "[REDACTED]";

/** Where person properties ride on an event: treated too, so PII does not reach the person. */
const PERSON_SETS = ["$set", "$set_once"] as const;

/** SHA-256 of salt and the value's text (JSON for non-strings), hex. */
export function saltedHash(salt: string, value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return createHash("sha256").update(salt).update(text).digest("hex");
}

export const piiPlugin = definePlugin({
  key: "pii",
  name: "Hash or redact PII",
  description:
    "Replaces the listed properties (also in $set / $set_once) by a salted SHA-256 hash, which still tells equal values apart, or by \"[REDACTED]\". Optionally hashes the distinct id too.",
  config: z.object({
    properties: propertyNameList.default(["email", "$email", "phone", "name"]).meta(field("Properties", "One name per line.")),
    mode: z.enum(["hash", "redact"]).default("hash").meta(field("Mode", "hash: salted SHA-256; redact: replace by [REDACTED].")),
    // A fresh random salt per config unless one is given: hashes of guessable values (e-mail
    // addresses) cannot then be reversed with a dictionary.
    salt: z
      .string()
      .max(200, "the salt must be at most 200 characters.")
      .default(() => randomBytes(16).toString("hex"))
      .meta(field("Salt", "Mixed into every hash. Left empty on creation, a random one is made.", { secret: true })),
    hash_distinct_id: z.boolean().default(false).meta(field("Hash the distinct id", "Also replace the distinct id by its salted hash (persons then use the hash).")),
  }),
  build(config) {
    const names = config.properties;
    // The same values (a user's e-mail) come again and again: remember their hashes (bounded).
    const hashes = new Map<unknown, string>();
    const hashOf = (value: unknown) => {
      let hash = hashes.get(value);
      if (hash === undefined) {
        hash = saltedHash(config.salt, value);
        if (hashes.size >= 10_000) hashes.clear();
        // Objects are hashed by their JSON each time: only scalars are remembered.
        if (typeof value !== "object") hashes.set(value, hash);
      }
      return hash;
    };
    const replace = config.mode === "hash" ? hashOf : () => REDACTED;
    const treat = (record: Record<string, unknown>): Record<string, unknown> => {
      let out = record;
      for (const name of names) {
        if (!Object.prototype.hasOwnProperty.call(record, name)) continue;
        const value = record[name];
        if (value === null || value === undefined) continue;
        // Values only change, no key is added: a spread copy is the fastest.
        if (out === record) out = { ...record };
        setOwn(out, name, replace(value));
      }
      return out;
    };
    return (event) => {
      let properties = treat(event.properties);
      for (const key of PERSON_SETS) {
        const set = properties[key];
        if (!isPlainObject(set)) continue;
        const changed = treat(set);
        if (changed === set) continue;
        // properties is either the event's own (copy it) or already treat's copy.
        if (properties === event.properties) properties = { ...properties };
        setOwn(properties, key, changed);
      }
      const distinctId = config.hash_distinct_id ? hashOf(event.distinctId) : event.distinctId;
      if (properties === event.properties && distinctId === event.distinctId) return event;
      return { ...event, properties, distinctId };
    };
  },
});
