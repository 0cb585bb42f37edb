/**
 * tRPC server setup: the context every procedure receives, and the procedure builders.
 *
 * Routers live in ./routers and are joined in ./root.ts. Procedures stay thin: parse input
 * (zod contracts from src/server/<domain>/contract.ts), check access, call a service from
 * src/server/<domain>/service.ts. They never touch Prisma themselves.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import { z, ZodError } from "zod";
import { getDb, type Database } from "@/server/db";
import { ConfigError } from "@/server/db/config";
import { APP_ERRORS, AppError } from "@/server/errors";
import { refuseHostileInput } from "@/server/input/check";
import { recordId } from "@/server/input/record-id";
import type { SessionUser } from "@/server/auth/contract";
import { sessionPrincipal, sessionUserFromHeaders } from "@/server/http/rest/principal";
import { checkApiRateLimit } from "@/server/http/rest/rate-limit";
import { resolveProject } from "@/server/http/rest/project";

/** What every procedure sees as `ctx`. */
export interface TRPCContext {
  /** The process's database (Prisma client, plain SQL driver, config). */
  db: Database;
  /** The incoming request's headers (cookies, authorization, user agent …). */
  headers: Headers;
  /** The signed-in user (next-auth session cookie), or null. */
  user: SessionUser | null;
  /** Fires when the browser went away (analytics.ts cancels what the call started). */
  signal?: AbortSignal;
}

/**
 * Builds the context for one request. The database is opened on first use through
 * `getDb()` (under `npm start` the server has already opened it), never at import time,
 * so `next build` and modules that merely import the router do not touch it.
 *
 * Tests and server components skip this and pass a context to `createCaller` directly.
 */
export async function createTRPCContext(opts: { headers: Headers; signal?: AbortSignal }): Promise<TRPCContext> {
  const db = await getDb();
  return { db, headers: opts.headers, user: await sessionUserFromHeaders(db.prisma, opts.headers), signal: opts.signal };
}

const t = initTRPC.context<TRPCContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // Unexpected failures are logged by the route handler; in production the browser gets
    // no internals. A ConfigError is written for the operator and names no secret: keep it.
    const masked =
      error.code === "INTERNAL_SERVER_ERROR" && process.env.NODE_ENV === "production" && !(cause instanceof ConfigError);
    return {
      ...shape,
      message: masked ? "Internal server error" : shape.message,
      data: {
        ...shape.data,
        /** The input field at fault, when a service named one (AppError.attr). */
        attr: cause instanceof AppError ? cause.attr : null,
        zodError: cause instanceof ZodError ? z.flattenError(cause) : null,
      },
    };
  },
});

/**
 * Services throw AppError; this turns it into the TRPCError its code maps to (the table in
 * src/server/errors.ts), so a `not_found` answers 404 over tRPC as it does over REST.
 */
const appErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: APP_ERRORS[cause.code].trpc, message: cause.message, cause });
  }
  return result;
});

/** U+0000 anywhere in the input is a 400 before any procedure runs (see src/server/input/nul.ts). */
const nulFreeInput = t.middleware(async ({ getRawInput, next }) => {
  const raw = await getRawInput();
  refuseHostileInput(raw);
  return next();
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const middleware = t.middleware;

/**
 * A signed-in caller's every call counts against the user's API rate limit — the one the
 * REST API's calls by that session count against — before its input is read; a batched call
 * counts once per procedure in it. tRPC had none: 60 forced recomputations all ran where
 * REST answered 429 (issue 32). Calls without a session (sign-up, invites) have their own throttles.
 */
const rateLimited = t.middleware(({ ctx, next }) => {
  if (ctx.user) checkApiRateLimit(sessionPrincipal(ctx.user));
  return next();
});

/** Anyone may call it; no session is required. */
export const publicProcedure = t.procedure.use(appErrors).use(rateLimited).use(nulFreeInput);

/**
 * A signed-in user; narrows `ctx.user` and makes `ctx` a service `UserContext` (`actor`,
 * `scopes`: a session acts with every scope).
 */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new AppError("not_authenticated", "Sign in to continue.");
  const principal = sessionPrincipal(ctx.user);
  return next({ ctx: { ...ctx, user: ctx.user, actor: principal.user, scopes: principal.scopes } });
});

/**
 * A signed-in member of the project named by the input's `projectId`; adds `ctx.project`,
 * so `ctx` is the service `Context` every project service takes first. Uses the same
 * project check as the REST edge.
 */
export const projectProcedure = protectedProcedure
  .input(z.object({ projectId: recordId() }))
  .use(async ({ ctx, input, next }) => {
    const project = await resolveProject(ctx.db.prisma, sessionPrincipal(ctx.user), String(input.projectId));
    return next({ ctx: { ...ctx, project } });
  });

export { TRPCError };
