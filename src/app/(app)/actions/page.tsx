import type { Metadata } from "next";
import { ActionsPage } from "@/components/actions/actions-list";

export const metadata: Metadata = { title: "Actions" };

export default function ActionsRoute() {
  return <ActionsPage />;
}
