import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { ActionEditorPage } from "@/components/actions/action-editor";

export const metadata: Metadata = { title: "Action" };

export default async function ActionRoute({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^\d{1,10}$/.test(id)) notFound();
  return <ActionEditorPage id={Number(id)} />;
}
