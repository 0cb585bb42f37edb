// `GET /api/schema/`: the OpenAPI document (JSON; `?format=yaml` for YAML), public as PostHog's is.
import { schemaResponse } from "@/server/http/openapi/schema-route";

export const dynamic = "force-dynamic";

export const GET = schemaResponse;
