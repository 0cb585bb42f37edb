/**
 * Bind parameters of one SQL statement: every value a caller gave goes in as a parameter;
 * `add` returns its placeholder. PostgreSQL's SqlParams (`$3::text`, values in order) and
 * ClickHouse's ChParams (`{p3:String}`, values sent beside the SQL) share one surface, so
 * the builders, the HogQL compiler and the property-filter engine bind through either. The
 * casts are PostgreSQL's names, mapped to ClickHouse types.
 */
export type Cast = "text" | "text[]" | "float8" | "timestamptz" | "int" | "bigint" | "uuid" | "uuid[]";

export abstract class BindParams {
  private readonly constants = new Map<string, string>();

  /** The placeholder of a new parameter holding `value`. */
  abstract add(value: unknown, cast: Cast): string;

  /** A value this code supplies, bound once however often it is used. */
  constant(value: string, cast: Cast = "text"): string {
    const id = `${cast}:${value}`;
    let placeholder = this.constants.get(id);
    if (!placeholder) {
      placeholder = this.add(value, cast);
      this.constants.set(id, placeholder);
    }
    return placeholder;
  }
}

/** What the compilers need of a binder (either dialect's, or a stand-in that binds nothing). */
export type Binder = Pick<BindParams, "add" | "constant">;

/** PostgreSQL's parameters: `$3::text` placeholders, values in order. */
export class SqlParams extends BindParams {
  readonly values: unknown[] = [];

  add(value: unknown, cast: Cast): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

const CH_TYPES = {
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

/** ClickHouse's parameters: `{p3:String}` placeholders, values by name. */
export class ChParams extends BindParams {
  readonly values: Record<string, unknown> = {};
  private count = 0;

  add(value: unknown, cast: ChCast): string {
    const name = `p${++this.count}`;
    // DateTime64 parameters are text; the compilers hand ISO strings.
    this.values[name] = cast === "timestamptz" && typeof value === "string" ? chTime(new Date(value)) : value;
    return `{${name}:${CH_TYPES[cast]}}`;
  }
}
