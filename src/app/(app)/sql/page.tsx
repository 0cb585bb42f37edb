import type { Metadata } from "next";
import { Suspense } from "react";
import { SqlEditorPage } from "@/components/sql/sql-editor-page";

export const metadata: Metadata = { title: "SQL" };

export default function Page() {
  return (
    <Suspense>
      <SqlEditorPage />
    </Suspense>
  );
}
