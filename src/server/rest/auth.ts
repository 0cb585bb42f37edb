import { authenticatePersonalApiKey, type ApiKeyPrincipal } from "@/server/auth/personal-api-keys";
import type { PrismaClient } from "@/server/db/client";
import { AppError } from "@/server/errors";

/** The personal API key of a management request: `Authorization: Bearer <key>`. */
export async function requireApiKey(prisma: PrismaClient, request: Request): Promise<ApiKeyPrincipal> {
  const header = request.headers.get("authorization");
  if (!header) throw new AppError("not_authenticated", "Authentication credentials were not provided.");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AppError("authentication_failed", "Authorization header must be 'Bearer <personal API key>'.");
  const principal = await authenticatePersonalApiKey(prisma, match[1]!);
  if (!principal) {
    throw new AppError("authentication_failed", "Personal API key found in request Authorization header is invalid.");
  }
  return principal;
}
