/**
 * The one error type services throw. Each code maps to an HTTP status and error `type`
 * (the REST edge, src/server/rest) and to a tRPC code (src/server/api), in one table here.
 */
export const APP_ERRORS = {
  invalid_input: { status: 400, type: "validation_error", trpc: "BAD_REQUEST" },
  /** A request body that does not fit its schema where PostHog parses it with pydantic (the query API): DRF's ParseError. */
  parse_error: { status: 400, type: "invalid_request", trpc: "BAD_REQUEST" },
  not_authenticated: { status: 401, type: "authentication_error", trpc: "UNAUTHORIZED" },
  authentication_failed: { status: 401, type: "authentication_error", trpc: "UNAUTHORIZED" },
  permission_denied: { status: 403, type: "authentication_error", trpc: "FORBIDDEN" },
  not_found: { status: 404, type: "invalid_request", trpc: "NOT_FOUND" },
  method_not_allowed: { status: 405, type: "invalid_request", trpc: "METHOD_NOT_SUPPORTED" },
  conflict: { status: 400, type: "validation_error", trpc: "CONFLICT" },
  throttled: { status: 429, type: "throttled_error", trpc: "TOO_MANY_REQUESTS" },
} as const;
export type AppErrorCode = keyof typeof APP_ERRORS;

/**
 * AppError's brand: one symbol for the whole process (Symbol.for), whichever copy of this
 * module made the error. The custom server (dist/server.mjs) and Next's route handlers are
 * separate bundles, each with its own AppError class, so a plain `instanceof` failed for an
 * error made in the other bundle (an unknown cohort in a web analytics query answered 500,
 * issue 32). `instanceof AppError` reads the brand instead of the prototype chain.
 */
const APP_ERROR_BRAND = Symbol.for("burrow.AppError");

export class AppError extends Error {
  override name = "AppError";
  readonly [APP_ERROR_BRAND] = true;

  /** Subclasses (QueryNodeError) keep the ordinary prototype check; they are thrown and caught within one bundle. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== AppError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === "object" && value !== null && (value as { [APP_ERROR_BRAND]?: unknown })[APP_ERROR_BRAND] === true;
  }
  constructor(
    readonly code: AppErrorCode,
    message: string,
    /** The request field at fault, if one is. */
    readonly attr: string | null = null,
    /**
     * For `throttled`: seconds until the caller may try again (the Retry-After header).
     * `code`: PostHog's own code for this error where it has one (`behavioral_cohort_found`).
     */
    readonly details: { retryAfter?: number; code?: string } = {},
  ) {
    super(message);
  }

  get status(): number {
    return APP_ERRORS[this.code].status;
  }
}
