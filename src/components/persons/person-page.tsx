"use client";

import { keepPreviousData, skipToken, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { EventDrawer } from "@/components/events/event-drawer";
import { EventTable } from "@/components/events/event-table";
import { ProjectGate } from "@/components/settings/project-gate";
import {
  Badge,
  Button,
  buttonClasses,
  Card,
  CardBody,
  CardHeader,
  CopyButton,
  Detail,
  Dialog,
  EmptyState,
  ErrorState,
  FormAlert,
  formatDateTime,
  inputClasses,
  ListCard,
  ListFooter,
  LoadingState,
  PageHeader,
  Spinner,
} from "@/components/ui";
import type { EventResource } from "@/server/events/present";
import type { PersonResource } from "@/server/persons/present";
import { errorMessage } from "@/trpc/errors";
import { visibleProperties } from "./property-filter";
import { useTRPC } from "@/trpc/react";
import { propertyText, propertyValueOf } from "./property-text";

const EVENTS_PAGE = 25;

const PERSONS_CRUMB = (
  <Link href="/persons" className="hover:underline">
    Persons
  </Link>
);

export function PersonPage({ id }: { id: string }) {
  return (
    <div className="flex flex-col gap-6" data-testid="person-page">
      <ProjectGate testId="person-project">{(project) => <PersonView projectId={project.id} id={id} />}</ProjectGate>
    </div>
  );
}

function PersonView({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const person = useQuery(trpc.persons.get.queryOptions({ projectId, id }, { retry: (count, error) => count < 2 && errorMessage(error) !== "Not found." }));
  const [deleted, setDeleted] = useState<{ uuid: string; name: string; withEvents: boolean } | null>(null);

  if (deleted) return <DeletedPerson projectId={projectId} {...deleted} />;
  if (person.isPending) {
    return (
      <Card>
        <LoadingState label="Loading person…" />
      </Card>
    );
  }
  if (person.isError) {
    const missing = person.error.message === "Not found.";
    return (
      <>
        <PageHeader eyebrow={PERSONS_CRUMB} title={missing ? "Person not found" : "Person"} />
        <Card className="p-4" data-testid="person-error">
          {missing ? (
            <EmptyState
              title="No such person"
              description="They may have been deleted, or merged into another person."
              action={
                <Link href="/persons" className={buttonClasses()}>
                  Back to persons
                </Link>
              }
            />
          ) : (
            <ErrorState title="Could not load this person" message={errorMessage(person.error)} onRetry={() => void person.refetch()} retrying={person.isRefetching} />
          )}
        </Card>
      </>
    );
  }
  const data = person.data;
  return (
    <>
      <PageHeader
        eyebrow={PERSONS_CRUMB}
        title={<span className="break-all">{data.name}</span>}
        description={
          <span className="flex flex-wrap items-center gap-2 text-sm">
            {data.is_identified ? <Badge tone="success">Identified</Badge> : <Badge>Anonymous</Badge>}
            <span>First seen {formatDateTime(data.created_at)}</span>
          </span>
        }
        actions={
          <>
            <Link href={`/replay?person=${data.uuid}&range=-1y`} className={buttonClasses({ variant: "secondary" })} data-testid="person-watch-recordings">
              Watch recordings
            </Link>
            <DeletePerson projectId={projectId} person={data} onDeleted={setDeleted} />
          </>
        }
      />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="flex min-w-0 flex-col gap-6">
          <PersonEvents projectId={projectId} uuid={data.uuid} />
          <Properties projectId={projectId} person={data} />
        </div>
        <div className="flex min-w-0 flex-col gap-6">
          <Card aria-labelledby="person-ids-title">
            <CardHeader title="Identity" titleId="person-ids-title" />
            <CardBody>
              <dl className="flex flex-col gap-3 text-sm">
                <Detail label="Person UUID">
                  <span className="flex items-center gap-2">
                    <span className="font-mono text-xs break-all" data-testid="person-uuid">
                      {data.uuid}
                    </span>
                    <CopyButton value={data.uuid} label="Copy person UUID" />
                  </span>
                </Detail>
                <Detail label={data.distinct_ids.length === 1 ? "Distinct ID" : `Distinct IDs (${data.distinct_ids.length})`}>
                  <ul className="flex flex-col gap-1" data-testid="person-distinct-ids">
                    {data.distinct_ids.map((distinctId) => (
                      <li key={distinctId} className="font-mono text-xs break-all">
                        {distinctId}
                      </li>
                    ))}
                  </ul>
                </Detail>
              </dl>
            </CardBody>
          </Card>
          <Cohorts projectId={projectId} id={data.uuid} />
        </div>
      </div>
    </>
  );
}

function Properties({ projectId, person }: { projectId: number; person: PersonResource }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.persons.get.queryKey({ projectId, id: person.uuid }) });
  const set = useMutation(trpc.persons.setProperty.mutationOptions());
  const remove = useMutation(trpc.persons.deleteProperty.mutationOptions());
  const [search, setSearch] = useState("");
  const [showEmpty, setShowEmpty] = useState(false);
  const total = Object.keys(person.properties).length;
  const { shown: entries, hiddenEmpty } = visibleProperties(person.properties, search, showEmpty);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!key.trim()) return;
    await set.mutateAsync({ projectId, id: person.uuid, key: key.trim(), value: propertyValueOf(value) });
    await queryClient.invalidateQueries({ queryKey: trpc.persons.get.queryKey() });
    setKey("");
    setValue("");
  }

  return (
    <Card aria-labelledby="person-properties-title" data-testid="person-properties">
      <CardHeader title="Properties" titleId="person-properties-title" description="Set with $set in events, or here." />
      {total > 0 && (
        <div className="flex flex-col gap-2 px-4 pb-3 sm:flex-row sm:items-center sm:px-5">
          <input
            type="search"
            className={inputClasses({ className: "sm:max-w-xs" })}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            placeholder="Search properties"
            aria-label="Search properties"
            data-testid="person-property-search"
          />
          {(hiddenEmpty > 0 || showEmpty) && (
            <Button variant="ghost" size="sm" onClick={() => setShowEmpty((value) => !value)} aria-pressed={showEmpty} data-testid="person-property-empty-toggle">
              {showEmpty ? "Hide empty properties" : `Show ${hiddenEmpty} empty`}
            </Button>
          )}
        </div>
      )}
      {entries.length === 0 ? (
        <p className="px-4 py-4 text-sm text-gray-600 sm:px-5" data-testid="person-properties-none">
          {total === 0 ? "No properties yet." : search.trim() ? "No property matches." : "Every property is empty."}
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm">
            <thead className="sr-only">
              <tr>
                <th scope="col">Property</th>
                <th scope="col">Value</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-gray-200">
              {entries.map(([name, raw]) => (
                <tr key={name} data-testid="person-property" data-key={name}>
                  <th scope="row" className="w-2/5 max-w-48 px-4 py-2 text-left align-top font-mono text-xs leading-5 font-medium break-all text-gray-700 sm:px-5">
                    {name}
                  </th>
                  <td className="px-4 py-2 align-top leading-5 break-all text-gray-900">{propertyText(raw)}</td>
                  <td className="w-10 px-2 py-1 text-right align-top">
                    <Button
                      variant="ghost"
                      size="sm"
                      className="px-2"
                      aria-label={`Delete property ${name}`}
                      loading={remove.isPending && remove.variables?.key === name}
                      onClick={() => remove.mutate({ projectId, id: person.uuid, key: name }, { onSuccess: () => void refresh() })}
                      data-testid="person-property-delete"
                    >
                      <svg aria-hidden="true" viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" className="size-4">
                        <path d="M5 5l10 10M15 5 5 15" />
                      </svg>
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form onSubmit={save} className="flex flex-col gap-2 border-t border-gray-200 px-4 py-3 sm:flex-row sm:items-end sm:px-5" aria-label="Set a property">
        <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs font-medium text-gray-700">
          Property
          <input className={inputClasses()} value={key} maxLength={1000} onChange={(event) => setKey(event.target.value)} placeholder="e.g. plan" data-testid="person-property-key" />
        </label>
        <label className="flex min-w-0 flex-1 flex-col gap-1 text-xs font-medium text-gray-700">
          Value
          <input className={inputClasses()} value={value} onChange={(event) => setValue(event.target.value)} placeholder='Text, or JSON: 42, true, ["a"]' data-testid="person-property-value" />
        </label>
        <Button type="submit" variant="secondary" loading={set.isPending} disabled={!key.trim()} data-testid="person-property-save">
          Set property
        </Button>
      </form>
      {(set.isError || remove.isError) && (
        <div className="px-4 pb-3 sm:px-5">
          <FormAlert>{errorMessage(set.error ?? remove.error)}</FormAlert>
        </div>
      )}
    </Card>
  );
}

function PersonEvents({ projectId, uuid }: { projectId: number; uuid: string }) {
  const trpc = useTRPC();
  const [selected, setSelected] = useState<EventResource | null>(null);
  const list = useInfiniteQuery({
    ...trpc.events.list.infiniteQueryOptions(
      { projectId, personId: uuid, limit: EVENTS_PAGE },
      { getNextPageParam: (page) => page.next ?? undefined, initialCursor: null },
    ),
    placeholderData: keepPreviousData,
  });
  const events = list.data?.pages.flatMap((page) => page.results) ?? [];
  return (
    <section aria-labelledby="person-events-title" className="flex flex-col gap-3">
      <h2 id="person-events-title" className="text-base font-semibold text-gray-900">
        Events
      </h2>
      <ListCard
        aria-label="Events of this person"
        data-testid="person-events"
        query={list}
        empty={events.length === 0}
        loadingLabel="Loading events…"
        errorTitle="Could not load events"
        errorMessage={list.isError ? errorMessage(list.error) : undefined}
        emptyState={<EmptyState title="No events" description="None of this person's distinct IDs has sent an event we still have." />}
      >
        <EventTable events={events} onOpen={setSelected} />
        <ListFooter count={events.length} noun={["event", "events"]} refreshing={list.isFetching && !list.isFetchingNextPage} testId="person-events-count">
          {list.hasNextPage && (
            <Button variant="secondary" size="sm" loading={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
              Load more
            </Button>
          )}
        </ListFooter>
      </ListCard>
      <EventDrawer projectId={projectId} event={selected} onClose={() => setSelected(null)} />
    </section>
  );
}

function Cohorts({ projectId, id }: { projectId: number; id: string }) {
  const trpc = useTRPC();
  const cohorts = useQuery(trpc.persons.cohorts.queryOptions({ projectId, id }));
  const results = cohorts.data?.results ?? [];
  return (
    <ListCard
      aria-label="Cohorts"
      data-testid="person-cohorts"
      query={cohorts}
      empty={results.length === 0}
      loadingLabel="Loading cohorts…"
      errorTitle="Could not load cohorts"
      errorMessage={cohorts.isError ? errorMessage(cohorts.error) : undefined}
      emptyState={
        <>
          <CardHeader title="Cohorts" />
          <p className="px-4 py-4 text-sm text-gray-600 sm:px-5">Not in any cohort.</p>
        </>
      }
    >
      <CardHeader title="Cohorts" />
      <ul className="divide-y divide-gray-200">
        {results.map((cohort) => (
          <li key={cohort.id} className="flex items-center justify-between gap-2 px-4 py-2.5 text-sm sm:px-5">
            <Link href={`/cohorts/${cohort.id}`} className="truncate font-medium text-brand-700 hover:underline" data-testid="person-cohort-link">
              {cohort.name || `Cohort ${cohort.id}`}
            </Link>
            <Badge>{cohort.is_static ? "Static" : "Dynamic"}</Badge>
          </li>
        ))}
      </ul>
    </ListCard>
  );
}

/** "Delete person and events": a confirmation naming what goes, then the person is gone and their events follow. */
function DeletePerson({
  projectId,
  person,
  onDeleted,
}: {
  projectId: number;
  person: PersonResource;
  onDeleted: (deleted: { uuid: string; name: string; withEvents: boolean }) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [withEvents, setWithEvents] = useState(true);
  const cancel = useRef<HTMLButtonElement>(null);
  // The safe choice has the focus: showModal gives it to the first control (the checkbox), and runs before this effect.
  useEffect(() => {
    if (open) cancel.current?.focus();
  }, [open]);
  const remove = useMutation(
    trpc.persons.delete.mutationOptions({
      onSuccess: async () => {
        setOpen(false);
        onDeleted({ uuid: person.uuid, name: person.name, withEvents });
        await queryClient.invalidateQueries({ queryKey: trpc.persons.list.queryKey() });
      },
    }),
  );
  return (
    <>
      <Button variant="danger" onClick={() => setOpen(true)} data-testid="person-delete">
        Delete person
      </Button>
      <Dialog
        open={open}
        onClose={() => {
          if (!remove.isPending) setOpen(false);
        }}
        title={`Delete ${person.name}?`}
        description="The person and their distinct IDs are deleted at once. This cannot be undone."
        testId="person-delete-dialog"
        footer={
          <>
            <Button ref={cancel} variant="secondary" onClick={() => setOpen(false)} disabled={remove.isPending} data-testid="person-delete-cancel">
              Cancel
            </Button>
            <Button
              variant="danger"
              loading={remove.isPending}
              onClick={() => remove.mutate({ projectId, id: person.uuid, deleteEvents: withEvents })}
              data-testid="person-delete-confirm"
            >
              {withEvents ? "Delete person and events" : "Delete person"}
            </Button>
          </>
        }
      >
        <label className="flex items-start gap-2 text-sm text-gray-800">
          <input
            type="checkbox"
            className="mt-0.5 size-4 accent-brand-600"
            checked={withEvents}
            onChange={(event) => setWithEvents(event.target.checked)}
            data-testid="person-delete-events"
          />
          <span>
            Also delete all their events
            <span className="block text-xs text-gray-500">Removed for good, in the background, within moments. Without this, their events stay, without a person.</span>
          </span>
        </label>
        {remove.isError && (
          <div className="mt-3">
            <FormAlert>{errorMessage(remove.error)}</FormAlert>
          </div>
        )}
      </Dialog>
    </>
  );
}

/** After the delete: the person is gone; their events' deletion is followed until it is done. */
function DeletedPerson({ projectId, uuid, name, withEvents }: { projectId: number; uuid: string; name: string; withEvents: boolean }) {
  const trpc = useTRPC();
  const status = useQuery({
    ...trpc.persons.deletion.queryOptions(withEvents ? { projectId, id: uuid } : skipToken),
    refetchInterval: (query) => (query.state.data?.finished_at ? false : 1000),
  });
  const deletion = status.data;
  return (
    <>
      <PageHeader
        eyebrow={PERSONS_CRUMB}
        title={<span className="break-all">{name}</span>}
      />
      <Card className="p-5" data-testid="person-deleted" data-state={!withEvents || deletion?.finished_at ? "done" : "running"}>
        <h2 className="text-base font-semibold text-gray-900">Person deleted</h2>
        <div role="status" className="mt-2 text-sm text-gray-700">
          {!withEvents ? (
            <p>Their distinct IDs are free: a new event from one of them makes a new person. Their events were kept.</p>
          ) : deletion?.finished_at ? (
            <p data-testid="person-deletion-result">
              All their events are deleted: {deletion.deleted_events} {deletion.deleted_events === 1 ? "event" : "events"}.
            </p>
          ) : (
            <p className="flex items-center gap-2" data-testid="person-deletion-progress">
              <Spinner label={null} className="text-brand-600" />
              Deleting their events… {deletion ? `${deletion.deleted_events} so far` : ""}
              {deletion?.last_error ? ` (retrying: ${deletion.last_error})` : ""}
            </p>
          )}
          {status.isError && <p className="mt-2 text-red-700">Could not read the deletion's progress: {errorMessage(status.error)}</p>}
        </div>
        <Link href="/persons" className={buttonClasses({ variant: "secondary", className: "mt-4" })} data-testid="person-deleted-back">
          Back to persons
        </Link>
      </Card>
    </>
  );
}
