// `GET /api/docs`: the API reference page (Swagger UI over /api/schema/, served by Burrow).
import { referenceResponse } from "@/server/http/openapi/reference-page";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  return referenceResponse(request, "");
}
