import type { Metadata } from "next";
import { NewExperimentPage } from "@/components/experiments/experiment-form";

export const metadata: Metadata = { title: "New experiment" };

export default function NewExperimentRoute() {
  return <NewExperimentPage />;
}
