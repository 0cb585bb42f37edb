import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { Database } from "@/server/db";
import { AppError } from "@/server/errors";
import { createCallerFactory, createTRPCRouter, publicProcedure } from "./trpc";

const router = createTRPCRouter({
  missing: publicProcedure.query(() => {
    throw new AppError("not_found", "No dashboard 7 in this project.");
  }),
  broken: publicProcedure.query(() => {
    throw new Error("boom");
  }),
});
const caller = createCallerFactory(router)({ db: {} as Database, headers: new Headers(), user: null });

async function failure(call: Promise<unknown>): Promise<TRPCError> {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe("publicProcedure", () => {
  it("turns a service's AppError into the tRPC code of its table entry, keeping the message", async () => {
    const error = await failure(caller.missing());
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toBe("No dashboard 7 in this project.");
    expect(error.cause).toBeInstanceOf(AppError);
  });

  it("leaves other errors as INTERNAL_SERVER_ERROR", async () => {
    const error = await failure(caller.broken());
    expect(error.code).toBe("INTERNAL_SERVER_ERROR");
  });
});
