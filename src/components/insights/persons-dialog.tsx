"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { Button, Dialog, LoadingState, formatDate } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { actorPersons, actorsQuery, personName, type ActorsSelection } from "./actors-query";
import { useActors } from "./actors-source";

const PAGE = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * "Who are these people": the persons behind a chosen point of an insight, a page at a
 * time, each linking to their page. A native dialog: focus moves in, Escape closes, focus
 * returns to the chart.
 */
export function PersonsDialog({ projectId, selection, onClose }: { projectId: number; selection: ActorsSelection | null; onClose: () => void }) {
  const [offset, setOffset] = useState(0);
  useEffect(() => setOffset(0), [selection]);
  const answer = useActors(projectId, selection ? actorsQuery(selection.source, { limit: PAGE, offset }) : null);
  const persons = answer.data ? actorPersons(answer.data) : [];

  return (
    <Dialog
      open={selection !== null}
      onClose={onClose}
      title={selection?.title ?? "Persons"}
      description="The persons behind this point of the insight."
      testId="persons-dialog"
      className="max-w-lg"
      footer={
        <>
          {offset > 0 && (
            <Button variant="secondary" onClick={() => setOffset(Math.max(0, offset - PAGE))} data-testid="persons-previous">
              Previous
            </Button>
          )}
          {answer.data?.hasMore && (
            <Button variant="secondary" onClick={() => setOffset(offset + PAGE)} data-testid="persons-next">
              Next
            </Button>
          )}
          <Button onClick={onClose} data-testid="persons-close">
            Close
          </Button>
        </>
      }
    >
      {answer.isPending ? (
        <LoadingState label="Loading persons…" className="px-0 py-4" />
      ) : answer.isError ? (
        <p role="alert" className="rounded-control bg-red-50 px-3 py-2 text-sm text-red-800 ring-1 ring-red-200 ring-inset" data-testid="persons-error">
          Could not load the persons: {errorMessage(answer.error)}
        </p>
      ) : persons.length === 0 ? (
        <p className="py-4 text-sm text-gray-600" data-testid="persons-empty">
          No persons here.
        </p>
      ) : (
        <ul className="max-h-80 divide-y divide-gray-100 overflow-y-auto" data-testid="persons-list" aria-label="Persons">
          {persons.map((person) => (
            <li key={person.id} className="flex items-baseline justify-between gap-3 py-2">
              {UUID.test(person.id) ? (
                <Link
                  href={`/persons/${person.id}`}
                  className="min-w-0 truncate text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600"
                  data-testid="persons-link"
                >
                  {personName(person)}
                </Link>
              ) : (
                // Events stored without a person: their distinct id, with no page to open.
                <span className="min-w-0 truncate text-sm text-gray-800" data-testid="persons-anonymous">
                  {personName(person)}
                </span>
              )}
              {person.created_at && <span className="shrink-0 text-xs text-gray-500">since {formatDate(person.created_at)}</span>}
            </li>
          ))}
        </ul>
      )}
      {answer.data && (persons.length > 0 || offset > 0) && (
        <p className="pt-2 text-xs text-gray-500" data-testid="persons-range">
          {persons.length === 0 ? "No more persons." : `Showing ${offset + 1}–${offset + persons.length}`}
        </p>
      )}
    </Dialog>
  );
}
