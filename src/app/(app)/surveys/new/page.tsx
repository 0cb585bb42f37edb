import type { Metadata } from "next";
import { NewSurveyPage } from "@/components/surveys/survey-builder";

export const metadata: Metadata = { title: "New survey" };

export default function NewSurveyRoute() {
  return <NewSurveyPage />;
}
