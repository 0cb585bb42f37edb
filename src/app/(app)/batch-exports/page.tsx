import type { Metadata } from "next";
import { BatchExportsPage } from "@/components/batch-exports/batch-exports-list";

export const metadata: Metadata = { title: "Batch exports" };

export default function Page() {
  return <BatchExportsPage />;
}
