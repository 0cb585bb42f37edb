import type { Metadata } from "next";
import { CohortsPage } from "@/components/cohorts/cohorts-list";

export const metadata: Metadata = { title: "Cohorts" };

export default function CohortsRoute() {
  return <CohortsPage />;
}
