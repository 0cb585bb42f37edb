/**
 * An ingestion request that cannot be accepted. Answered with a JSON body
 * `{type, code, detail, attr}` like the management API, and never with a 5xx.
 */
export class IngestionError extends Error {
  override name = "IngestionError";
  constructor(
    readonly status: 400 | 401 | 413 | 503,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const invalidPayload = (detail: string) => new IngestionError(400, "invalid_payload", detail);
