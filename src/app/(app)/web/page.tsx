import type { Metadata } from "next";
import { WebAnalyticsPage } from "@/components/web/web-analytics-page";

export const metadata: Metadata = { title: "Web analytics" };

export default function WebPage() {
  return <WebAnalyticsPage />;
}
