import type { Metadata } from "next";
import { NewBatchExportPage } from "@/components/batch-exports/batch-export-form";

export const metadata: Metadata = { title: "New batch export" };

export default function Page() {
  return <NewBatchExportPage />;
}
