import type { Metadata } from "next";
import { SharedFrame } from "@/components/dashboards/shared-frame";
import { Card } from "@/components/ui";

export const metadata: Metadata = { title: "Page not found", robots: { index: false, follow: false } };

/**
 * A share link that does not work: unknown, switched off, replaced or of a deleted
 * dashboard look the same, so the page reveals nothing about which.
 */
export default function SharedNotFound() {
  return (
    <SharedFrame>
      <Card data-testid="shared-not-found" className="mx-auto max-w-lg px-6 py-12 text-center sm:px-10">
        <p className="text-sm font-semibold text-brand-700">404</p>
        <h1 className="mt-2 text-2xl font-semibold tracking-tight text-gray-900">This link does not work</h1>
        <p className="mt-2 text-gray-600">There is no shared dashboard at this address. Ask whoever sent you the link for a new one.</p>
      </Card>
    </SharedFrame>
  );
}
