import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AppError, type AppErrorCode } from "@/server/errors";
import { errorResponse, fromZodError, json, toErrorResponse } from "./respond";

afterEach(() => {
  vi.restoreAllMocks();
});

async function body(response: Response) {
  expect(response.headers.get("content-type")).toBe("application/json");
  return response.json();
}

describe("errorResponse", () => {
  it.each<[AppErrorCode, number, string]>([
    ["invalid_input", 400, "validation_error"],
    ["parse_error", 400, "invalid_request"],
    ["not_authenticated", 401, "authentication_error"],
    ["authentication_failed", 401, "authentication_error"],
    ["permission_denied", 403, "authentication_error"],
    ["not_found", 404, "invalid_request"],
    ["method_not_allowed", 405, "invalid_request"],
  ])("answers %s with status %i and PostHog's body of type %s", async (code, status, type) => {
    const response = errorResponse(new AppError(code, "A human sentence."));
    expect(response.status).toBe(status);
    expect(await body(response)).toEqual({ type, code, detail: "A human sentence.", attr: null });
  });

  it("carries the field at fault in attr", async () => {
    const response = errorResponse(new AppError("invalid_input", "This field is required.", "name"));
    expect(await body(response)).toEqual({ type: "validation_error", code: "invalid_input", detail: "This field is required.", attr: "name" });
  });

  it("reports a conflict as PostHog's 400 unique validation error", async () => {
    const response = errorResponse(new AppError("conflict", "Already exists.", "key"));
    expect(response.status).toBe(400);
    expect(await body(response)).toEqual({ type: "validation_error", code: "unique", detail: "Already exists.", attr: "key" });
  });
});

describe("toErrorResponse", () => {
  const schema = z.object({
    name: z.string(),
    filters: z.object({ date_from: z.string() }).optional(),
    tiles: z.array(z.object({ layouts: z.record(z.string(), z.number()) })).optional(),
  });

  it("turns a ZodError into a 400 validation_error naming the field", async () => {
    const response = toErrorResponse(schema.safeParse({}).error);
    expect(response.status).toBe(400);
    const b = await body(response);
    expect(b).toMatchObject({ type: "validation_error", code: "invalid_input", attr: "name" });
    expect(b.detail).toBeTypeOf("string");
    expect(b.detail.length).toBeGreaterThan(0);
  });

  it("joins a nested field's path with __, as PostHog does", async () => {
    expect(await body(toErrorResponse(schema.safeParse({ name: "x", filters: { date_from: 7 } }).error))).toMatchObject({
      attr: "filters__date_from",
    });
    expect(await body(toErrorResponse(schema.safeParse({ name: "x", tiles: [{ layouts: {} }, { layouts: { sm: "x" } }] }).error))).toMatchObject({
      attr: "tiles__1__layouts__sm",
    });
  });

  it("gives attr null to an error about the whole input", () => {
    expect(fromZodError(schema.safeParse("not an object").error!).attr).toBeNull();
  });

  it("passes an AppError through with its own status", async () => {
    const response = toErrorResponse(new AppError("permission_denied", "API key missing required scope 'dashboard:write'"));
    expect(response.status).toBe(403);
    expect(await body(response)).toEqual({
      type: "authentication_error",
      code: "permission_denied",
      detail: "API key missing required scope 'dashboard:write'",
      attr: null,
    });
  });

  it("answers anything else with a 500 that logs the error but does not leak its message", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const response = toErrorResponse(new Error("password=hunter2 in connection string"));
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toMatchObject({ type: "server_error", attr: null });
    expect(logged).toHaveBeenCalled();
  });
});

describe("json", () => {
  it("sends a JSON body with the given status and extra headers", async () => {
    const response = json({ results: [] }, 201, { etag: '"v1"' });
    expect(response.status).toBe(201);
    expect(response.headers.get("etag")).toBe('"v1"');
    expect(await body(response)).toEqual({ results: [] });
  });
});
