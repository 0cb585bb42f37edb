"use client";

import { useSyncExternalStore } from "react";
import { Card, CardBody, CardHeader, CodeBlock, CopyField, Detail } from "@/components/ui";
import { ProjectGate } from "./project-gate";

const subscribeNever = () => () => {};

/** This page's origin: where SDKs send events (the server renders nothing for it). */
function useOrigin(): string {
  return useSyncExternalStore(
    subscribeNever,
    () => window.location.origin,
    () => "",
  );
}

function posthogJsSnippet(key: string, host: string): string {
  return `import posthog from 'posthog-js'

posthog.init('${key}', {
    api_host: '${host}',
})`;
}

function posthogNodeSnippet(key: string, host: string): string {
  return `import { PostHog } from 'posthog-node'

const client = new PostHog('${key}', { host: '${host}' })

client.capture({ distinctId: 'user-123', event: 'signed up' })
await client.shutdown()`;
}

export function ProjectSettings() {
  const origin = useOrigin();
  return (
    <ProjectGate testId="project-settings">
      {(project) => (
        <div className="flex flex-col gap-6" data-testid="project-settings" data-state="ready">
          <Card aria-labelledby="project-title">
            <CardHeader titleId="project-title" title="Project" description="The project you are working in. Switch projects from the top bar." />
            <CardBody>
              <dl className="grid gap-4 text-sm sm:grid-cols-3">
                <Detail label="Name">
                  <span data-testid="project-name">{project.name}</span>
                </Detail>
                <Detail label="Project ID">
                  <span className="font-mono" data-testid="project-id">
                    {project.id}
                  </span>
                </Detail>
                <Detail label="Organization">{project.organization.name}</Detail>
              </dl>
            </CardBody>
          </Card>

          <Card aria-labelledby="project-key-title">
            <CardHeader
              titleId="project-key-title"
              title="Project API key"
              description="SDKs send events and evaluate flags with it. It is public: it can write events but read nothing."
            />
            <CardBody>
              <CopyField label="Project API key" hideLabel value={project.apiToken} testId="project-api-key" />
            </CardBody>
          </Card>

          <Card aria-labelledby="snippets-title">
            <CardHeader
              titleId="snippets-title"
              title="Send events"
              description="Burrow speaks PostHog's API: point PostHog's SDKs at this server."
            />
            <CardBody className="flex flex-col gap-5">
              {origin ? (
                <>
                  <div className="flex min-w-0 flex-col gap-2">
                    <h3 className="text-sm font-medium text-gray-900">In the browser, with posthog-js</h3>
                    <CodeBlock title="posthog-js" code={posthogJsSnippet(project.apiToken, origin)} testId="snippet-posthog-js" />
                  </div>
                  <div className="flex min-w-0 flex-col gap-2">
                    <h3 className="text-sm font-medium text-gray-900">On a Node.js server, with posthog-node</h3>
                    <CodeBlock title="posthog-node" code={posthogNodeSnippet(project.apiToken, origin)} testId="snippet-posthog-node" />
                  </div>
                </>
              ) : null}
            </CardBody>
          </Card>
        </div>
      )}
    </ProjectGate>
  );
}
