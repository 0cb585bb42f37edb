// The API reference page's scripts and styles (only the names reference-page.ts lists).
import { referenceResponse } from "@/server/http/openapi/reference-page";

export const dynamic = "force-dynamic";

export async function GET(request: Request, { params }: { params: Promise<{ file: string }> }): Promise<Response> {
  return referenceResponse(request, (await params).file);
}
