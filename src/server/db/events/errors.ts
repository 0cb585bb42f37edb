/**
 * Database errors the event store turns into the caller's AppError: what a filter can make
 * the database refuse — a regular expression it does not accept, or one too complex — is the
 * caller's mistake, a 400 on `properties`, not a 500. Both stores run their reads through
 * `translated`, so no domain has to.
 */
import { AppError } from "@/server/errors";

export function translateError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "2201B") {
    return new AppError("invalid_input", `properties: the database rejected a regular expression (${(error as Error).message}).`, "properties");
  }
  if (code === "54000" || code === "54001") return new AppError("invalid_input", "properties: the filter is too complex.", "properties");
  // ClickHouse (RE2) refusing a pattern.
  if ((error as { type?: unknown } | null)?.type === "CANNOT_COMPILE_REGEXP") {
    return new AppError("invalid_input", `properties: the database rejected a regular expression (${(error as Error).message.split(". Look at")[0]}).`, "properties");
  }
  return error;
}

/** A read of the store, with the database's errors translated (translateError). */
export async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translateError(error);
  }
}
