import type { Metadata } from "next";
import { NewDestinationPage } from "@/components/destinations/destination-form";

export const metadata: Metadata = { title: "New destination" };

export default function Page() {
  return <NewDestinationPage />;
}
