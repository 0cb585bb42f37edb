import type { Metadata } from "next";
import { ExperimentsPage } from "@/components/experiments/experiments-list";

export const metadata: Metadata = { title: "Experiments" };

export default function ExperimentsRoute() {
  return <ExperimentsPage />;
}
