import type { Metadata } from "next";
import { PersonalApiKeys } from "@/components/settings/personal-api-keys";

export const metadata: Metadata = { title: "Personal API keys" };

export default function PersonalApiKeysPage() {
  return <PersonalApiKeys />;
}
