import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { InsightEditorPage } from "@/components/insights/editor/insight-editor";

export const metadata: Metadata = { title: "Insight" };

export default async function Page({ params }: { params: Promise<{ shortId: string }> }) {
  const { shortId } = await params;
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(shortId)) notFound();
  return (
    <Suspense>
      <InsightEditorPage shortId={shortId} />
    </Suspense>
  );
}
