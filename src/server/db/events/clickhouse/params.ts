/**
 * Bind parameters of one ClickHouse statement (`{p3:String}` placeholders, values sent
 * beside the SQL), with the same `add`/`constant` surface as SqlParams, so the HogQL
 * compiler binds through either. The casts are PostgreSQL's names, mapped to ClickHouse types.
 */
const TYPES = {
  text: "String",
  "text[]": "Array(String)",
  float8: "Float64",
  timestamptz: "DateTime64(6, 'UTC')",
  int: "Int32",
  bigint: "Int64",
  uuid: "UUID",
  "uuid[]": "Array(UUID)",
} as const;

export type ChCast = keyof typeof TYPES;

/** A time as a DateTime64 parameter takes it (UTC, no zone suffix). */
export function chTime(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}

export class ChParams {
  readonly values: Record<string, unknown> = {};
  private count = 0;
  private readonly constants = new Map<string, string>();

  add(value: unknown, cast: ChCast): string {
    const name = `p${++this.count}`;
    // DateTime64 parameters are text; the compilers hand ISO strings.
    this.values[name] = cast === "timestamptz" && typeof value === "string" ? chTime(new Date(value)) : value;
    return `{${name}:${TYPES[cast]}}`;
  }

  constant(value: string, cast: ChCast = "text"): string {
    const id = `${cast}:${value}`;
    let placeholder = this.constants.get(id);
    if (!placeholder) {
      placeholder = this.add(value, cast);
      this.constants.set(id, placeholder);
    }
    return placeholder;
  }
}
