import { getMe } from "@/server/accounts/users";
import { AppError } from "@/server/errors";
import { userRoute } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET /api/users/@me/`: whom the presented key belongs to. */
export const GET = userRoute<{ user_id: string }>(async ({ params, db, principal }) => {
  if (params.user_id !== "@me") throw new AppError("not_found", "Not found.");
  return getMe(db.prisma, principal.user.id);
});
