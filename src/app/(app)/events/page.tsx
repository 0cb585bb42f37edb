import type { Metadata } from "next";
import { EventsExplorer } from "@/components/events/events-explorer";

export const metadata: Metadata = { title: "Events" };

export default function EventsPage() {
  return <EventsExplorer />;
}
