import type { Metadata } from "next";
import { SurveysPage } from "@/components/surveys/surveys-list";

export const metadata: Metadata = { title: "Surveys" };

export default function SurveysRoute() {
  return <SurveysPage />;
}
