import { ZodError } from "zod";
import { APP_ERRORS, AppError } from "@/server/errors";

/** PostHog's management error body (drf-exceptions-hog): one error, the first. */
export interface ErrorBody {
  type: string;
  code: string;
  detail: string;
  attr: string | null;
}

export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function errorResponse(error: AppError): Response {
  const body: ErrorBody = {
    type: APP_ERRORS[error.code].type,
    code: error.details.code ?? (error.code === "conflict" ? "unique" : error.code),
    detail: error.message,
    attr: error.attr,
  };
  const retryAfter = error.details.retryAfter;
  return json(body, error.status, retryAfter ? { "retry-after": String(retryAfter) } : undefined);
}

/** A ZodError as PostHog reports validation: the first issue, nested attrs joined by `__`. */
export function fromZodError(error: ZodError): AppError {
  const issue = error.issues[0]!;
  const attr = issue.path.length > 0 ? issue.path.map(String).join("__") : null;
  return new AppError("invalid_input", issue.message, attr);
}

/** Maps anything thrown by a handler to a response; unexpected errors are logged, not leaked. */
export function toErrorResponse(error: unknown): Response {
  if (error instanceof AppError) return errorResponse(error);
  if (error instanceof ZodError) return errorResponse(fromZodError(error));
  console.error("burrow: unexpected error while serving a request", error);
  return json({ type: "server_error", code: "error", detail: "A server error occurred.", attr: null }, 500);
}
