import type { Metadata } from "next";
import { PersonsPage } from "@/components/persons/persons-list";

export const metadata: Metadata = { title: "Persons" };

export default function Persons() {
  return <PersonsPage />;
}
