import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PersonPage } from "@/components/persons/person-page";

export const metadata: Metadata = { title: "Person" };

export default async function Person({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // A person uuid or integer id, as the API takes them.
  if (!/^([0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}|\d{1,10})$/i.test(id)) notFound();
  return <PersonPage id={id} />;
}
