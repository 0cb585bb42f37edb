import type { Metadata } from "next";
import { FlagsPage } from "@/components/feature-flags/flags-list";

export const metadata: Metadata = { title: "Feature flags" };

export default function FeatureFlagsPage() {
  return <FlagsPage />;
}
