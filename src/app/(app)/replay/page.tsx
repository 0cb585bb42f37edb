import type { Metadata } from "next";
import { ReplayPage } from "@/components/replay/replay-list";

export const metadata: Metadata = { title: "Replay" };

export default function Replay() {
  return <ReplayPage />;
}
