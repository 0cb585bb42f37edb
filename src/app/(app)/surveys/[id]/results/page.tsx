import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SurveyResultsPage } from "@/components/surveys/survey-results";

export const metadata: Metadata = { title: "Survey results" };

export default async function SurveyResultsRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[0-9a-f-]{36}$/i.test(id)) notFound();
  return <SurveyResultsPage id={id} />;
}
