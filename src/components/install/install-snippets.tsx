"use client";

import { Card, CardBody, CardHeader, CodeBlock, useHydrated } from "@/components/ui";
import { htmlSnippet, posthogJsSnippet, posthogNodeSnippet } from "./snippets";
import { TestEventButton } from "./test-event-button";

/** This page's origin: where SDKs send events (the server renders nothing for it). */
function useOrigin(): string {
  return useHydrated() ? window.location.origin : "";
}

/** PostHog's snippet, posthog-js and posthog-node pointed at this server, and a test event. */
export function InstallSnippets({ projectId, apiToken }: { projectId: number; apiToken: string }) {
  const origin = useOrigin();
  return (
    <Card aria-labelledby="install-title" id="install" className="scroll-mt-6" data-testid="install-snippets">
      <CardHeader
        titleId="install-title"
        title="Send events"
        description="Burrow speaks PostHog's API: point PostHog's SDKs at this server."
      />
      <CardBody className="flex flex-col gap-5">
        {origin ? (
          <>
            <div className="flex min-w-0 flex-col gap-2">
              <h3 className="text-sm font-medium text-gray-900">On a website: PostHog's HTML snippet</h3>
              <p className="text-sm text-gray-600">
                Paste it into the <code className="font-mono text-[13px]">&lt;head&gt;</code> of every page. It loads posthog-js from this server and
                records page views, which the Web analytics page shows.
              </p>
              <CodeBlock title="HTML snippet" code={htmlSnippet(apiToken, origin)} testId="snippet-html" />
            </div>
            <div className="flex min-w-0 flex-col gap-2">
              <h3 className="text-sm font-medium text-gray-900">In a web app, with posthog-js</h3>
              <CodeBlock title="posthog-js" code={posthogJsSnippet(apiToken, origin)} testId="snippet-posthog-js" />
            </div>
            <div className="flex min-w-0 flex-col gap-2">
              <h3 className="text-sm font-medium text-gray-900">On a Node.js server, with posthog-node</h3>
              <CodeBlock title="posthog-node" code={posthogNodeSnippet(apiToken, origin)} testId="snippet-posthog-node" />
            </div>
          </>
        ) : null}
        <div className="flex flex-col gap-2 border-t border-gray-200 pt-4">
          <h3 className="text-sm font-medium text-gray-900">Check the install</h3>
          <p className="text-sm text-gray-600">Sends one page view for this project through the same pipeline as the SDKs; Home shows it arrive.</p>
          <TestEventButton projectId={projectId} />
        </div>
      </CardBody>
    </Card>
  );
}
