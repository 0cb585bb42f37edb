import type { Metadata } from "next";
import Link from "next/link";
import { SiteShell } from "@/components/site-shell";
import { buttonClasses, Card } from "@/components/ui";

export const metadata: Metadata = { title: "Page not found" };

export default function NotFound() {
  return (
    <SiteShell>
      <Card data-testid="not-found" className="mx-auto max-w-lg px-6 py-12 text-center sm:px-10">
        <p className="text-sm font-semibold text-brand-700">404</p>
        <h1 className="mt-2 text-2xl font-semibold tracking-tight text-gray-900">Page not found</h1>
        <p className="mt-2 text-gray-600">There is nothing at this address. It may have moved, or the link may be wrong.</p>
        <Link href="/" className={buttonClasses({ className: "mt-6" })}>
          Back to home
        </Link>
      </Card>
    </SiteShell>
  );
}
