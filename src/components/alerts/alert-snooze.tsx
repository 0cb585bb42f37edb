"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, buttonClasses, Dialog, FormAlert, Popover, popoverItemClasses, TextField } from "@/components/ui";
import type { AlertResource } from "@/server/alerts/contract";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

const HOUR_MS = 3_600_000;
const PRESETS = [
  { label: "1 hour", ms: HOUR_MS, testId: "alert-snooze-hour" },
  { label: "1 day", ms: 24 * HOUR_MS, testId: "alert-snooze-day" },
  { label: "1 week", ms: 7 * 24 * HOUR_MS, testId: "alert-snooze-week" },
] as const;

/** Whether the alert is snoozed now (a snooze that has run out ends with its next check). */
export const snoozedNow = (alert: Pick<AlertResource, "snoozed_until">) => alert.snoozed_until !== null && new Date(alert.snoozed_until).getTime() > Date.now();

/** A `datetime-local` value (the browser's time zone) for a time. */
function localInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Tomorrow at 09:00, the browser's time: the date picker's first suggestion. */
function tomorrowMorning(): Date {
  const date = new Date();
  date.setDate(date.getDate() + 1);
  date.setHours(9, 0, 0, 0);
  return date;
}

/**
 * "Snooze" on an alert (PostHog's `snoozed_until`): for an hour, a day, a week or until a
 * chosen time; a snoozed alert is not checked on schedule and notifies nobody. "Unsnooze"
 * when it is snoozed.
 */
export function AlertSnooze({ projectId, alert }: { projectId: number; alert: AlertResource }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [picking, setPicking] = useState(false);
  const [until, setUntil] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const update = useMutation(
    trpc.alerts.update.mutationOptions({
      onSuccess: async () => {
        setPicking(false);
        await queryClient.invalidateQueries(trpc.alerts.pathFilter());
      },
    }),
  );
  const snoozeUntil = (date: Date) => update.mutate({ projectId, id: alert.id, patch: { snoozed_until: date.toISOString() } });

  if (snoozedNow(alert)) {
    return (
      <Button size="sm" variant="secondary" onClick={() => update.mutate({ projectId, id: alert.id, patch: { snoozed_until: null } })} loading={update.isPending} data-testid="alert-unsnooze">
        Unsnooze
      </Button>
    );
  }
  const pickDate = () => {
    const date = new Date(until);
    if (!until || Number.isNaN(date.getTime())) return setProblem("Choose a date and time.");
    if (date.getTime() <= Date.now()) return setProblem("Choose a time in the future.");
    setProblem(null);
    snoozeUntil(date);
  };
  return (
    <>
      <Popover
        align="end"
        strategy="fixed"
        buttonClassName={buttonClasses({ variant: "secondary", size: "sm" })}
        buttonTestId="alert-snooze"
        buttonLabel={`Snooze ${alert.name}`}
        panelTestId="alert-snooze-menu"
        button={update.isPending ? "Snoozing…" : "Snooze"}
      >
        {(close) => (
          <>
            <p className="px-3.5 pt-1 pb-1.5 text-xs font-medium text-gray-500">Snooze for</p>
            {PRESETS.map((preset) => (
              <button
                key={preset.label}
                type="button"
                className={popoverItemClasses}
                onClick={() => {
                  close();
                  snoozeUntil(new Date(Date.now() + preset.ms));
                }}
                data-testid={preset.testId}
              >
                {preset.label}
              </button>
            ))}
            <button
              type="button"
              className={popoverItemClasses}
              onClick={() => {
                close();
                setUntil(localInput(tomorrowMorning()));
                setProblem(null);
                setPicking(true);
              }}
              data-testid="alert-snooze-date"
            >
              Until a date…
            </button>
          </>
        )}
      </Popover>
      {update.isError && !picking && <p className="basis-full text-xs text-red-700">{errorMessage(update.error)}</p>}
      <Dialog
        open={picking}
        onClose={() => setPicking(false)}
        title={`Snooze "${alert.name}"`}
        description="No scheduled checks and no notices until then; checks resume at that time."
        testId="alert-snooze-dialog"
        footer={
          <>
            <Button variant="secondary" onClick={() => setPicking(false)} disabled={update.isPending}>
              Cancel
            </Button>
            <Button onClick={pickDate} loading={update.isPending} data-testid="alert-snooze-save">
              Snooze
            </Button>
          </>
        }
      >
        <form
          className="flex flex-col gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            pickDate();
          }}
          noValidate
        >
          {update.isError && <FormAlert>{errorMessage(update.error)}</FormAlert>}
          <TextField
            label="Until"
            type="datetime-local"
            value={until}
            min={localInput(new Date())}
            onChange={(event) => setUntil(event.target.value)}
            hint="In your browser's time zone."
            error={problem}
            testId="alert-snooze-until"
            autoFocus
          />
          <button type="submit" hidden />
        </form>
      </Dialog>
    </>
  );
}
