"use client";

import { InstallSnippets } from "@/components/install/install-snippets";
import { Card, CardBody, CardHeader, CopyField, Detail } from "@/components/ui";
import { DataCollectionSettings } from "./data-collection-settings";
import { ProjectGate } from "./project-gate";
import { ReplaySettings } from "./replay-settings";

export function ProjectSettings() {
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

          <DataCollectionSettings project={project} />

          <ReplaySettings project={project} />

          <InstallSnippets projectId={project.id} apiToken={project.apiToken} />
        </div>
      )}
    </ProjectGate>
  );
}
