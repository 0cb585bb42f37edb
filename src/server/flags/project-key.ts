import { INVALID_PROJECT_KEY } from "@/server/accounts/contract";
import type { Database } from "@/server/db";
import { AppError } from "@/server/errors";
import { refuseNul } from "@/server/input/nul";

/**
 * The project whose public key (`phc_…`) a server SDK names with `?token=` beside a personal
 * key (local evaluation, remote config payloads), or a 401. A NUL is a 400 before the lookup,
 * which would fail the query (a 500).
 */
export async function projectIdOfToken(db: Database, token: string): Promise<number> {
  refuseNul({ token });
  const project = await db.prisma.project.findUnique({ where: { apiToken: token }, select: { id: true } });
  if (!project) throw new AppError("authentication_failed", INVALID_PROJECT_KEY);
  return project.id;
}
