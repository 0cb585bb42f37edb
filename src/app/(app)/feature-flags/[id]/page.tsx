import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { FlagEditorPage } from "@/components/feature-flags/flag-editor";

export const metadata: Metadata = { title: "Feature flag" };

export default async function FeatureFlagPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^\d{1,10}$/.test(id)) notFound();
  return <FlagEditorPage id={Number(id)} />;
}
