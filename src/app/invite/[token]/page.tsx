import type { Metadata } from "next";
import { connection } from "next/server";
import { InviteAccept } from "@/components/auth/invite-accept";

export const metadata: Metadata = { title: "Join Burrow" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  await connection();
  const { token } = await params;
  return <InviteAccept token={token} />;
}
