import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { BatchExportPage } from "@/components/batch-exports/batch-export-detail";

export const metadata: Metadata = { title: "Batch export" };

export default async function BatchExportRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) notFound();
  return <BatchExportPage id={id} />;
}
