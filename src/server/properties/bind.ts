/**
 * Bind parameters of one SQL statement: every value a caller gave goes in as a parameter;
 * `add` returns its placeholder. PostgreSQL's SqlParams here, ClickHouse's ChParams
 * (db/events/clickhouse/params.ts) beside it; the casts are PostgreSQL's names.
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
