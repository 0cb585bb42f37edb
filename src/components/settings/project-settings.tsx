"use client";

import { InstallSnippets } from "@/components/install/install-snippets";
import { Card, CardBody, CardHeader, CopyField } from "@/components/ui";
import { DataCollectionSettings } from "./data-collection-settings";
import { ProjectGeneralSettings } from "./project-general-settings";
import { ProjectGate } from "./project-gate";
import { ReplaySettings } from "./replay-settings";
import { TestAccountSettings } from "./test-account-settings";

export function ProjectSettings() {
  return (
    <ProjectGate testId="project-settings">
      {(project) => (
        <div className="flex flex-col gap-6" data-testid="project-settings" data-state="ready">
          <ProjectGeneralSettings key={project.id} project={project} />

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

          <TestAccountSettings project={project} />

          <ReplaySettings project={project} />

          <InstallSnippets projectId={project.id} apiToken={project.apiToken} />
        </div>
      )}
    </ProjectGate>
  );
}
