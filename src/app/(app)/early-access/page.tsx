import type { Metadata } from "next";
import { EarlyAccessPage } from "@/components/early-access/early-access-page";

export const metadata: Metadata = { title: "Early access" };

export default function EarlyAccessRoute() {
  return <EarlyAccessPage />;
}
