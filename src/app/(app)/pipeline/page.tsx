import type { Metadata } from "next";
import { PipelinePage } from "@/components/pipeline/pipeline-page";

export const metadata: Metadata = { title: "Transformations" };

export default function Page() {
  return <PipelinePage />;
}
