"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { ProjectGate } from "@/components/settings/project-gate";
import { Badge, buttonClasses, ListPage, ListSearch, LocalTime, PageButtons, PageHeader, useListFilters } from "@/components/ui";
import { useTRPC } from "@/trpc/react";
import { SURVEYS_PAGE_SIZE, surveysListInput } from "./page-queries";
import type { SurveyResource } from "@/server/surveys/present";
import { surveyStatus } from "./survey-draft";

export function SurveysPage() {
  return (
    <div className="flex flex-col gap-6" data-testid="surveys-page">
      <PageHeader
        title="Surveys"
        description="Ask your users in your product: a popover posthog-js shows on the pages you choose, or your own UI through the API."
        actions={
          <Link href="/surveys/new" className={buttonClasses()} data-testid="new-survey">
            New survey
          </Link>
        }
      />
      <ProjectGate testId="surveys-project">{(project) => <SurveysList projectId={project.id} />}</ProjectGate>
    </div>
  );
}

function SurveysList({ projectId }: { projectId: number }) {
  const trpc = useTRPC();
  const { filters, page, setPage, filtered, change, clear } = useListFilters<{ search: string }>({ search: "" });
  const list = useQuery({
    ...trpc.surveys.list.queryOptions(surveysListInput(projectId, filters, page)),
    placeholderData: keepPreviousData,
  });
  const surveys = list.data?.results ?? [];
  return (
    <ListPage
      noun={["survey", "surveys"]}
      label="Surveys"
      testId="surveys"
      query={list}
      filters={<ListSearch label="Filter surveys" placeholder="Name" value={filters.search} onChange={(value) => change({ search: value })} testId="surveys-search" />}
      empty={surveys.length === 0}
      filtered={filtered}
      nothingMatches={{ description: "Try another name." }}
      onClearFilters={clear}
      nothingYet={{
        description: "Build one — an NPS score, a question with choices, an open text — preview it, then launch it on the pages you pick.",
        action: (
          <Link href="/surveys/new" className={buttonClasses()} data-testid="surveys-empty-new">
            New survey
          </Link>
        ),
      }}
      count={list.data?.count ?? 0}
      pager={<PageButtons page={page} pageSize={SURVEYS_PAGE_SIZE} count={list.data?.count ?? 0} onPage={setPage} />}
    >
      <ul className="divide-y divide-gray-200">
        {surveys.map((survey) => (
          <SurveyRow key={survey.id} survey={survey} />
        ))}
      </ul>
    </ListPage>
  );
}

function SurveyRow({ survey }: { survey: SurveyResource }) {
  const status = surveyStatus(survey);
  return (
    <li className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:gap-4" data-testid="survey-row" data-name={survey.name}>
      <div className="min-w-0 flex-1">
        <Link
          href={`/surveys/${survey.id}`}
          className="text-sm font-semibold break-words text-gray-900 hover:text-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          data-testid="survey-link"
        >
          {survey.name}
        </Link>
        <p className="mt-0.5 truncate text-sm text-gray-600">{survey.questions.map((question) => String(question.question ?? "")).join(" · ")}</p>
      </div>
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <Badge tone={status.tone} dot data-testid="survey-status">
          {status.label}
        </Badge>
        <Badge tone="neutral">{survey.type}</Badge>
        <Link href={`/surveys/${survey.id}/results`} className="text-sm text-brand-700 hover:underline" data-testid="survey-results-link">
          Results
        </Link>
        <span className="text-xs text-gray-500">created <LocalTime value={survey.created_at} /></span>
      </div>
    </li>
  );
}
