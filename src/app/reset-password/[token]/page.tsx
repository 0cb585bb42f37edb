import type { Metadata } from "next";
import { connection } from "next/server";
import { ResetPassword } from "@/components/auth/password-reset";

export const metadata: Metadata = { title: "Set a new password" };

export default async function ResetPasswordPage({ params }: { params: Promise<{ token: string }> }) {
  await connection();
  const { token } = await params;
  return <ResetPassword token={token} />;
}
