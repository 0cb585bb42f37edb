/**
 * Bind parameters of one ClickHouse statement (`{p3:String}` placeholders, values sent
 * beside the SQL), with the same `add`/`constant` surface as SqlParams (one BindParams), so
 * the HogQL and property-filter compilers bind through either. The casts are PostgreSQL's
 * names, mapped to ClickHouse types.
 */
import { BindParams, type Cast } from "@/server/properties/bind";

const TYPES = {
  text: "String",
  "text[]": "Array(String)",
  float8: "Float64",
  timestamptz: "DateTime64(6, 'UTC')",
  int: "Int32",
  bigint: "Int64",
  uuid: "UUID",
  "uuid[]": "Array(UUID)",
} as const satisfies Record<Cast, string>;

export type ChCast = Cast;

/** A time as a DateTime64 parameter takes it (UTC, no zone suffix). */
export function chTime(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}

export class ChParams extends BindParams {
  readonly values: Record<string, unknown> = {};
  private count = 0;

  add(value: unknown, cast: ChCast): string {
    const name = `p${++this.count}`;
    // DateTime64 parameters are text; the compilers hand ISO strings.
    this.values[name] = cast === "timestamptz" && typeof value === "string" ? chTime(new Date(value)) : value;
    return `{${name}:${TYPES[cast]}}`;
  }
}
