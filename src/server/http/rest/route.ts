import { z, type ZodType } from "zod";
import type { ScopeObject } from "@/server/auth/contract";
import { requireScopeOf } from "@/server/auth/service";
import type { Context, ProjectAccess, UserContext } from "@/server/context";
import { getDb, type Database } from "@/server/db";
import { AppError } from "@/server/errors";
import { refuseHostileInput } from "@/server/input/check";
import { INT4_MAX } from "@/server/input/record-id";
import { authenticate, type Principal } from "./principal";
import { resolveProject } from "./project";
import { checkApiRateLimit } from "./rate-limit";
import { json, toErrorResponse } from "./respond";

type RouteContext<Params> = { params: Promise<Params> };

/** What a user route's handler gets: the parsed request, and the service context built from it. */
export interface UserRequest<Params> {
  request: Request;
  params: Params;
  db: Database;
  principal: Principal;
  /** What a service outside any project takes first. */
  ctx: UserContext;
  /** The query string parsed by `schema` (a 400 naming the parameter if it does not fit, or if it holds U+0000). */
  query<T>(schema: ZodType<T>): T;
  /** The JSON body parsed by `schema` (a 400 if it is not JSON, does not fit, or holds U+0000). */
  body<T>(schema: ZodType<T>): Promise<T>;
  /** The JSON body unparsed (U+0000 and deep nesting refused), for a service that parses it with its own errors (the query API's). */
  json(): Promise<unknown>;
}

export interface ProjectRequest<Params> extends UserRequest<Params> {
  project: ProjectAccess;
  /** What every project service takes first: `{db, actor, project, scopes}`. */
  ctx: Context;
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function searchParamsObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/**
 * Parses management input with `schema`, refusing U+0000 both in what was sent and in what
 * the schema made of it (query parameters such as `tags` carry JSON whose escapes decode
 * to NUL only when parsed).
 */
function parseInput<T>(schema: ZodType<T>, raw: unknown): T {
  refuseHostileInput(raw);
  const parsed = schema.parse(raw);
  // What the schema decoded (JSON text in a parameter or field) may hold NUL too.
  refuseHostileInput(parsed);
  return parsed;
}

/**
 * A handler reading its input with another schema than its documentation names is a bug (the
 * OpenAPI document would describe a different request): it fails loudly, in every test that
 * calls the route, rather than drifting.
 */
function checkDocumented(doc: OperationDoc | undefined, part: "query" | "body", schema: ZodType): void {
  if (doc && doc[part] !== schema) throw new Error(`the route reads its ${part} with a schema its OperationDoc does not name`);
}

function requestFor<Params>(request: Request, params: Params, db: Database, principal: Principal, doc?: OperationDoc): UserRequest<Params> {
  return {
    request,
    params,
    db,
    principal,
    ctx: { db, actor: principal.user, scopes: principal.scopes, signal: request.signal },
    query: (schema) => {
      checkDocumented(doc, "query", schema);
      return parseInput(schema, searchParamsObject(new URL(request.url)));
    },
    async body(schema) {
      checkDocumented(doc, "body", schema);
      return parseInput(schema, await readJson(request));
    },
    json: async () => parseInput(z.unknown(), await readJson(request)),
  };
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  try {
    return text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw new AppError("invalid_input", "Malformed JSON request body.");
  }
}

function respond(result: Response | object | null, status: number): Response {
  if (result instanceof Response) return result;
  return result === null ? new Response(null, { status: 204 }) : json(result, status);
}

/**
 * What the OpenAPI document (src/server/http/openapi/) says of an operation. `query` and
 * `body` are the very schemas the handler parses with (`checkDocumented`), `response` the
 * contract's schema of what it answers, checked against real answers by
 * src/server/http/openapi/responses.int.test.ts.
 */
export interface OperationDoc {
  /** A few words: the operation's name in the reference. */
  summary: string;
  /** More, in Markdown: rules, defaults, what PostHog does alike. */
  description?: string;
  query?: ZodType;
  body?: ZodType;
  /** The JSON answer at the route's status; omitted when the answer has no body (204, 202, 405). */
  response?: ZodType;
  /** Answers in other media types (`text/csv`: "…"), or request bodies in them for `requestMedia`. */
  media?: Record<string, string>;
  requestMedia?: Record<string, string>;
}

interface RouteOptions {
  /** HTTP status of a returned value (201 for creates); null answers 204. */
  status?: number;
  /** The scope's action when the method does not say it: PostHog's `POST …/query/` only reads (`query:read`). */
  action?: "read" | "write";
  /** Scopes needed besides the route's own (PostHog asks for `person:read` to list a cohort's members), checked after the project. */
  alsoRequires?: readonly ScopeObject[];
  doc?: OperationDoc;
}

/** What a route handler carries for the OpenAPI document: who may call it and its documentation. */
export interface RouteOperation {
  /** `null`: no personal API key (the SDK routes: the project key in the request, or none). */
  scopes: readonly { object: ScopeObject; action?: "read" | "write" }[] | null;
  /** The project's secret key (`phs_…`) is accepted too (flag payloads for server SDKs). */
  secretKey?: boolean;
  status: number;
  doc: OperationDoc;
}

const OPERATION = Symbol.for("burrow.operation");

/** A route handler with its operation attached (read with `operationOf`). */
export function documented<H extends RouteHandler>(handler: H, operation: RouteOperation): H {
  return Object.assign(handler, { [OPERATION]: operation });
}

export function operationOf(handler: RouteHandler): RouteOperation | undefined {
  return (handler as RouteHandler & { [OPERATION]?: RouteOperation })[OPERATION];
}

/**
 * A management route that needs a signed-in user but no project (`/api/users/@me/`):
 * authenticates (key or session), rate-limits, checks `options.scope` when given, runs
 * `handler`, and maps what it returns or throws to a response (an object as JSON, null as
 * 204, errors as PostHog's body).
 */
export function userRoute<Params = Record<string, never>>(
  handler: (context: UserRequest<Params>) => Promise<Response | object | null>,
  options: RouteOptions & { scope?: ScopeObject } = {},
) {
  const route = async (request: Request, route: RouteContext<Params>): Promise<Response> => {
    try {
      const db = await getDb();
      const principal = await authenticate(db.prisma, request);
      checkApiRateLimit(principal);
      const context = requestFor(request, await route.params, db, principal, options.doc);
      if (options.scope) requireScope(context, options.scope, options.action);
      return respond(await handler(context), options.status ?? 200);
    } catch (error) {
      return toErrorResponse(error);
    }
  };
  if (!options.doc) return route;
  const scopes = options.scope ? [{ object: options.scope, action: options.action }] : [];
  return documented(route, { scopes, status: options.status ?? 200, doc: options.doc });
}

/** Throws PostHog's 403 unless the caller may use `scope` (`:read` for GET/HEAD, `:write` otherwise). */
export function requireScope(context: UserRequest<unknown>, scope: ScopeObject, action?: "read" | "write"): void {
  const needed = `${scope}:${action ?? (READ_METHODS.has(context.request.method) ? "read" : "write")}` as const;
  requireScopeOf(context.principal.scopes, needed);
}

/**
 * A management route under `/api/(projects|environments)/:project_id/…`: as `userRoute`,
 * and before `handler` runs, checks the scope (`<object>:read` for GET/HEAD,
 * `<object>:write` otherwise) and resolves `project_id` (a number or `@current`) to a
 * project the caller may use, then checks `options.alsoRequires`.
 */
export function projectRoute<Params extends { project_id: string }>(
  scope: ScopeObject,
  handler: (context: ProjectRequest<Params>) => Promise<Response | object | null>,
  options: RouteOptions = {},
) {
  const route = userRoute<Params>(
    async (context) => {
      requireScope(context, scope, options.action);
      const project = await resolveProject(context.db.prisma, context.principal, context.params.project_id);
      for (const also of options.alsoRequires ?? []) requireScope(context, also, options.action);
      return handler({ ...context, project, ctx: { ...context.ctx, project } });
    },
    options,
  );
  if (!options.doc) return route;
  // userRoute attached the doc without scopes: the project's scope and the extra ones replace it.
  const scopes = [scope, ...(options.alsoRequires ?? [])].map((object) => ({ object, action: options.action }));
  return documented(route, { scopes, status: options.status ?? 200, doc: options.doc });
}

/** For the methods a resource does not have: 405 with PostHog's error body. */
export async function methodNotAllowed(request: Request): Promise<Response> {
  return toErrorResponse(new AppError("method_not_allowed", `Method "${request.method}" not allowed.`));
}

/** An integer path id, or 404 (PostHog answers a non-numeric id as not found). */
export function pathId(value: string): number {
  const id = /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id) || id > INT4_MAX) throw new AppError("not_found", "Not found.");
  return id;
}

export { z };

/** A route handler as Next calls it: the request and its (promised) path parameters. */
export type RouteHandler = (request: Request, route: { params: Promise<any> }) => Promise<Response>;

export const REST_METHODS = ["GET", "POST", "PATCH", "PUT", "DELETE"] as const;
export type RestMethod = (typeof REST_METHODS)[number];

/** The two prefixes management resources live under; PostHog's environments are projects here. */
export type RestPrefix = "projects" | "environments";

/**
 * One management resource: its path under `/api/<prefix>/:project_id/` (`""` for the project
 * itself; `:name` segments become params), its handlers, and where it is mounted.
 */
export interface RestResource {
  path: string;
  /** Both unless listed: feature flag management is only under /api/projects/ (README). */
  prefixes?: readonly RestPrefix[];
  /** The methods served; any other of REST_METHODS answers PostHog's 405 (`methodNotAllowed`). */
  methods: Partial<Record<RestMethod, RouteHandler>>;
  /** Methods answered with an empty 405 and left out of `Allow`, as Next answers a method a route does not define. */
  undefinedMethods?: readonly RestMethod[];
}
