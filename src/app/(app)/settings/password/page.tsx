import type { Metadata } from "next";
import { ChangePassword } from "@/components/settings/change-password";

export const metadata: Metadata = { title: "Password" };

export default function PasswordPage() {
  return <ChangePassword />;
}
