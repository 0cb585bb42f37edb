import type { Metadata } from "next";
import { Suspense } from "react";
import { InsightEditorPage } from "@/components/insights/editor/insight-editor";

export const metadata: Metadata = { title: "New insight" };

export default function Page() {
  // The editor reads its query from the URL (useSearchParams).
  return (
    <Suspense>
      <InsightEditorPage />
    </Suspense>
  );
}
