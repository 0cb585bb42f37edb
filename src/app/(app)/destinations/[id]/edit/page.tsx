import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EditDestinationPage } from "@/components/destinations/destination-form";

export const metadata: Metadata = { title: "Edit destination" };

export default async function EditDestinationRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) notFound();
  return <EditDestinationPage id={id} />;
}
