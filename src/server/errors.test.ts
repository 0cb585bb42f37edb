/**
 * AppError across bundles (issue 32): the custom server and Next's route handlers each carry
 * a copy of src/server/errors.ts, so an error made by one copy reaches code compiled against
 * the other. A fresh copy of the module, loaded apart from this one, stands in for the other bundle.
 */
import { describe, expect, it, vi } from "vitest";
import { AppError } from "./errors";
import { QueryNodeError } from "./analytics/kind";

describe("AppError's brand", () => {
  it("an AppError made by another copy of the module is an AppError here, and the other way round", async () => {
    vi.resetModules();
    const other = (await import("./errors?copy" as string)) as typeof import("./errors");
    expect(other.AppError).not.toBe(AppError);
    const foreign = new other.AppError("invalid_input", "unknown cohort", "properties");
    expect(foreign instanceof AppError).toBe(true);
    expect(new AppError("not_found", "x") instanceof other.AppError).toBe(true);
    expect(foreign.status).toBe(400);
  });

  it("plain errors and look-alikes are not AppErrors; subclasses keep their own check", () => {
    expect(new Error("x") instanceof AppError).toBe(false);
    expect({ code: "invalid_input", message: "x" } instanceof AppError).toBe(false);
    expect((null as unknown) instanceof AppError).toBe(false);
    const node = new QueryNodeError("bad", ["query"]);
    expect(node instanceof AppError).toBe(true);
    expect(node instanceof QueryNodeError).toBe(true);
    expect(new AppError("invalid_input", "x") instanceof QueryNodeError).toBe(false);
  });
});
