"use client";

import { useEffect } from "react";
import { SiteShell } from "@/components/site-shell";
import { Card, ErrorState } from "@/components/ui";

/** Catches errors thrown while rendering a page, with the same look as the rest. */
export default function ErrorPage({ error, retry }: { error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);

  // Server errors reach the browser as a generic message plus a digest matching the server log.
  const digest = error instanceof Error ? (error as Error & { digest?: string }).digest : undefined;

  return (
    <SiteShell>
      <Card data-testid="page-error" className="mx-auto max-w-lg p-6">
        <ErrorState
          title="This page could not be shown"
          message={digest ? `Error reference: ${digest}` : "An unexpected error occurred."}
          onRetry={retry}
        />
      </Card>
    </SiteShell>
  );
}
