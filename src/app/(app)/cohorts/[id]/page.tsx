import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CohortEditorPage } from "@/components/cohorts/cohort-editor";

export const metadata: Metadata = { title: "Cohort" };

export default async function CohortRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^\d{1,10}$/.test(id)) notFound();
  return <CohortEditorPage id={Number(id)} />;
}
