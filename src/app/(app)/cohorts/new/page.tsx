import type { Metadata } from "next";
import { NewCohortPage } from "@/components/cohorts/cohort-editor";

export const metadata: Metadata = { title: "New cohort" };

export default function NewCohortRoute() {
  return <NewCohortPage />;
}
