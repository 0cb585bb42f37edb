import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { SurveyEditorPage } from "@/components/surveys/survey-builder";

export const metadata: Metadata = { title: "Survey" };

export default async function SurveyRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[0-9a-f-]{36}$/i.test(id)) notFound();
  return <SurveyEditorPage id={id} />;
}
