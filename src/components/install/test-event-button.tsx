"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, type ButtonVariant } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

/**
 * Sends one `$test_event` through the capture pipeline for the project, then refreshes the
 * event lists, so whatever waits for a first event sees it arrive. Analytics leaves it out.
 */
export function TestEventButton({ projectId, variant = "secondary" }: { projectId: number; variant?: ButtonVariant }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const send = useMutation(
    trpc.install.sendTestEvent.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.events.pathKey() }),
    }),
  );
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
      <Button variant={variant} onClick={() => send.mutate({ projectId, origin: window.location.origin })} loading={send.isPending} data-testid="send-test-event">
        Send a test event
      </Button>
      <span aria-live="polite" className="text-sm" data-testid="send-test-event-result">
        {send.isError ? (
          <span className="text-red-700">Could not send it: {errorMessage(send.error)}</span>
        ) : send.isSuccess ? (
          <span className="text-gray-600">Sent a test event ({send.data.event}). It shows in Events and is left out of insights, web analytics and persons.</span>
        ) : null}
      </span>
    </div>
  );
}
