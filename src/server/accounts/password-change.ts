import type { PrismaClient } from "@/server/db/client";
import { hashPassword } from "@/server/auth/passwords";
import { checkPassword, type SignInThrottle } from "@/server/auth/sign-in";
import { AppError } from "@/server/errors";
import { changePasswordInput, type ChangePasswordInput } from "./contract";

/**
 * A signed-in user sets a new password. The current one is checked through the sign-in
 * throttle, so a stolen session cannot be used to guess it faster than the login form
 * allows. Every session of the user ends (the session version is bumped with the new hash);
 * the caller signs in again with the new password.
 */
export async function changePassword(prisma: PrismaClient, throttle: SignInThrottle, userId: number, input: ChangePasswordInput) {
  const { currentPassword, newPassword } = changePasswordInput.parse(input);
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { email: true } });
  if (!user) throw new AppError("not_found", "Not found.");
  if (!(await checkPassword(prisma, throttle, { email: user.email, password: currentPassword }))) {
    throw new AppError("invalid_input", "The current password is not right.", "currentPassword");
  }
  await prisma.user.update({
    where: { id: userId },
    data: { passwordHash: await hashPassword(newPassword), sessionVersion: { increment: 1 } },
  });
  return { email: user.email };
}
