import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RecordingPage } from "@/components/replay/recording-page";

export const metadata: Metadata = { title: "Recording" };

export default async function Recording({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // A session id as posthog-js makes them (PostHog's capture rule).
  if (!/^[A-Za-z0-9-]{1,70}$/.test(id)) notFound();
  return <RecordingPage id={id} />;
}
