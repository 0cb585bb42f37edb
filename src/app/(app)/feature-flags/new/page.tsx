import type { Metadata } from "next";
import { NewFlagPage } from "@/components/feature-flags/flag-editor";

export const metadata: Metadata = { title: "New feature flag" };

export default function NewFeatureFlagPage() {
  return <NewFlagPage />;
}
