import type { Metadata } from "next";
import { DashboardsPage } from "@/components/dashboards/dashboards-page";

export const metadata: Metadata = { title: "Dashboards" };

export default function Page() {
  return <DashboardsPage />;
}
