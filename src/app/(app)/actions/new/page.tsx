import type { Metadata } from "next";
import { NewActionPage } from "@/components/actions/action-editor";

export const metadata: Metadata = { title: "New action" };

export default function NewActionRoute() {
  return <NewActionPage />;
}
