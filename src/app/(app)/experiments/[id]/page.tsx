import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ExperimentPage } from "@/components/experiments/experiment-page";

export const metadata: Metadata = { title: "Experiment" };

export default async function ExperimentRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^\d{1,10}$/.test(id)) notFound();
  return <ExperimentPage id={Number(id)} />;
}
