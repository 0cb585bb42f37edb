"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Card, ErrorState, formatDateTime, inputClasses, LoadingState, PageHeader, PropertyFilterRow } from "@/components/ui";
import { LISTED, OPERATOR_LABELS, OPERATORS, VALUELESS } from "@/components/feature-flags/flag-draft";
import type { FlagPropertyOperator } from "@/server/properties/flag-filters";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import type { SurveyResultsAnswer } from "@/server/surveys/contract";

type Question = SurveyResultsAnswer["questions"][number];

/** `/surveys/:id/results`: counts, rates, each question's answers and the drop-off, by date. */
export function SurveyResultsPage({ id }: { id: string }) {
  return (
    <div className="flex flex-col gap-6" data-testid="survey-results-page">
      <ProjectGate testId="survey-project">{(project) => <Results projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function Results({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const [window, setWindow] = useState({ from: "", to: "" });
  const [person, setPerson] = useState<PersonFilter>({ key: "", operator: "exact", value: "" });
  const survey = useQuery(trpc.surveys.get.queryOptions({ projectId, id }));
  const results = useQuery(
    trpc.surveys.results.queryOptions({ projectId, id, query: { date_from: window.from || undefined, date_to: window.to || undefined, properties: propertiesOf(person) } }, { placeholderData: (previous) => previous }),
  );
  const back = (
    <Link href={`/surveys/${id}`} className="hover:underline">
      {survey.data?.name ?? "Survey"}
    </Link>
  );
  return (
    <>
      <PageHeader
        eyebrow={back}
        title="Results"
        actions={
          <div className="flex flex-wrap items-end gap-2">
            <label className="flex flex-col gap-1 text-xs font-medium text-gray-700">
              From
              <input type="date" className={inputClasses({ className: "h-9" })} value={window.from} onChange={(event) => setWindow({ ...window, from: event.target.value })} data-testid="results-from" />
            </label>
            <label className="flex flex-col gap-1 text-xs font-medium text-gray-700">
              To
              <input type="date" className={inputClasses({ className: "h-9" })} value={window.to} onChange={(event) => setWindow({ ...window, to: event.target.value })} data-testid="results-to" />
            </label>
          </div>
        }
      />
      <Card className="p-3" data-testid="results-person-filter">
        <ul>
          <PropertyFilterRow
            label="Only answers from persons whose"
            propertyKey={person.key}
            operator={person.operator}
            value={person.value}
            operators={OPERATORS}
            operatorLabels={OPERATOR_LABELS}
            valueless={VALUELESS}
            listed={LISTED}
            keyPlaceholder="Person property (e.g. plan) to narrow the answers"
            onChange={(patch) => setPerson({ ...person, ...patch })}
            onRemove={person.key || person.value ? () => setPerson({ key: "", operator: "exact", value: "" }) : undefined}
            removeLabel="Clear the person filter"
          />
        </ul>
      </Card>
      {results.isPending ? (
        <Card data-state="loading">
          <LoadingState label="Loading results…" />
        </Card>
      ) : results.isError ? (
        <Card className="p-4" data-state="error">
          <ErrorState title="Could not load the results" message={errorMessage(results.error)} onRetry={() => void results.refetch()} retrying={results.isRefetching} />
        </Card>
      ) : (
        <Answer results={results.data} />
      )}
    </>
  );
}

interface PersonFilter {
  key: string;
  operator: FlagPropertyOperator;
  value: string;
}

/** The results' `properties` parameter for a complete person filter; nothing while it is being typed. */
function propertiesOf({ key, operator, value }: PersonFilter): string | undefined {
  if (!key.trim()) return undefined;
  if (VALUELESS.has(operator)) return JSON.stringify([{ key: key.trim(), operator, type: "person" }]);
  if (!value.trim()) return undefined;
  const values = LISTED.has(operator) ? value.split(",").map((part) => part.trim()).filter(Boolean) : value;
  return JSON.stringify([{ key: key.trim(), operator, value: values, type: "person" }]);
}

function Answer({ results }: { results: SurveyResultsAnswer }) {
  const figures = [
    { label: "Shown", value: results.stats["survey shown"].unique_persons, detail: `${results.stats["survey shown"].total_count} times` },
    { label: "Responses", value: results.stats["survey sent"].total_count, detail: `${results.stats["survey sent"].unique_persons} persons` },
    { label: "Dismissed", value: results.stats["survey dismissed"].unique_persons, detail: "persons" },
    { label: "Response rate", value: `${results.rates.unique_users_response_rate}%`, detail: "of persons shown" },
  ];
  const widest = Math.max(1, ...results.funnel.map((step) => step.persons));
  return (
    <div className="flex flex-col gap-4" data-testid="survey-results">
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {figures.map((figure) => (
          <Card key={figure.label} className="p-4" data-testid="results-figure" data-label={figure.label}>
            <p className="text-sm text-gray-600">{figure.label}</p>
            <p className="text-2xl font-semibold text-gray-900 tabular-nums">{figure.value}</p>
            <p className="text-xs text-gray-500">{figure.detail}</p>
          </Card>
        ))}
      </div>
      <Card className="flex flex-col gap-2 p-4" data-testid="results-funnel">
        <h2 className="text-sm font-semibold text-gray-900">Drop-off, in persons</h2>
        {results.funnel.map((step) => (
          <div key={step.step} className="grid grid-cols-[8rem_minmax(0,1fr)_3rem] items-center gap-2 text-sm">
            <span className="text-gray-700">{step.step}</span>
            <span className="h-3 rounded bg-brand-500" style={{ width: `${(step.persons / widest) * 100}%` }} aria-hidden="true" />
            <span className="text-right tabular-nums">{step.persons}</span>
          </div>
        ))}
      </Card>
      {results.questions.map((question) => (
        <QuestionCard key={question.id} question={question} />
      ))}
    </div>
  );
}

function QuestionCard({ question }: { question: Question }) {
  const most = Math.max(1, ...question.counts.map((count) => count.count));
  return (
    <Card className="flex flex-col gap-3 p-4" data-testid="results-question" data-type={question.type}>
      <div>
        <p className="text-xs text-gray-500">
          Question {question.index + 1} · {question.answered} {question.answered === 1 ? "answer" : "answers"}
        </p>
        <h2 className="font-semibold break-words text-gray-900">{question.question}</h2>
      </div>
      {question.nps && (
        <p className="text-sm text-gray-700" data-testid="results-nps">
          NPS <strong className="text-lg text-gray-900">{question.nps.score}</strong> · {question.nps.promoters} promoters, {question.nps.passives} passives, {question.nps.detractors} detractors
        </p>
      )}
      {question.csat && (
        <p className="text-sm text-gray-700" data-testid="results-csat">
          CSAT <strong className="text-lg text-gray-900">{question.csat.score}%</strong> · {question.csat.satisfied} satisfied
        </p>
      )}
      {question.counts.length > 0 && (
        <div className="flex flex-col gap-1">
          {question.counts.map((count) => (
            <div key={count.value} className="grid grid-cols-[8rem_minmax(0,1fr)_3rem] items-center gap-2 text-sm">
              <span className="truncate text-gray-700">{count.value}</span>
              <span className="h-3 rounded bg-brand-400" style={{ width: `${(count.count / most) * 100}%` }} aria-hidden="true" />
              <span className="text-right tabular-nums">{count.count}</span>
            </div>
          ))}
        </div>
      )}
      {question.answers.length > 0 && (
        <ul className="divide-y divide-gray-100 rounded border border-gray-200" data-testid="results-answers">
          {question.answers.map((answer, index) => (
            <li key={index} className="flex flex-col gap-0.5 px-3 py-2 text-sm sm:flex-row sm:items-baseline sm:justify-between">
              <span className="break-words text-gray-900" data-testid="results-answer">
                {answer.response}
              </span>
              <span className="text-xs text-gray-500">
                {answer.person_id ? (
                  <Link href={`/persons/${answer.person_id}`} className="text-brand-700 hover:underline" data-testid="results-person">
                    {answer.distinct_id}
                  </Link>
                ) : (
                  answer.distinct_id
                )}{" "}
                · {formatDateTime(answer.timestamp)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
