"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState } from "react";
import { Button, Dialog, FormAlert, inputClasses, TextField } from "@/components/ui";
import type { SavedInsight as Insight } from "@/components/insights/insight-actions";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";

/** Name, description and a dashboard to add it to: creates the insight or saves its changes. */
export function SaveDialog({
  open,
  onClose,
  projectId,
  insight,
  query,
  returnTo,
  onSaving,
}: {
  open: boolean;
  onClose: () => void;
  projectId: number;
  insight: Insight | null;
  query: unknown;
  returnTo: number | null;
  /** Just before the page moves on to what was saved (the leave prompt stands down). */
  onSaving: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const formId = useId();
  const [name, setName] = useState(insight?.name ?? "");
  const [description, setDescription] = useState(insight?.description ?? "");
  const [dashboard, setDashboard] = useState(returnTo !== null ? String(returnTo) : "");
  const dashboards = useQuery({ ...trpc.dashboards.list.queryOptions({ projectId, limit: 200 }), enabled: open });
  const onSaved = async (saved: { short_id: string }) => {
    await Promise.all([queryClient.invalidateQueries(trpc.insights.pathFilter()), queryClient.invalidateQueries(trpc.dashboards.pathFilter())]);
    onSaving();
    onClose();
    if (dashboard) router.push(`/dashboards/${dashboard}`);
    else router.push(`/insights/${saved.short_id}`);
  };
  const create = useMutation(trpc.insights.create.mutationOptions({ onSuccess: onSaved }));
  const change = useMutation(trpc.insights.update.mutationOptions({ onSuccess: onSaved }));
  const mutation = insight ? change : create;

  const submit = () => {
    const chosen = dashboard ? Number(dashboard) : null;
    const body = { name: name.trim() || null, description, query, saved: true };
    if (insight) {
      const onDashboards = chosen !== null && !insight.dashboards.includes(chosen) ? [...insight.dashboards, chosen] : undefined;
      change.mutate({ projectId, insightId: insight.id, ...body, ...(onDashboards ? { dashboards: onDashboards } : {}) });
    } else {
      create.mutate({ projectId, ...body, ...(chosen !== null ? { dashboards: [chosen] } : {}) });
    }
  };

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={insight ? "Save insight" : "Save new insight"}
      testId="save-dialog"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={mutation.isPending} data-testid="save-confirm">
            {dashboard ? "Save and open dashboard" : "Save"}
          </Button>
        </>
      }
    >
      <form
        id={formId}
        className="flex flex-col gap-4"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        {mutation.isError && <FormAlert testId="save-error">{errorMessage(mutation.error)}</FormAlert>}
        <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} maxLength={400} placeholder="e.g. Signup funnel" testId="insight-name" autoFocus />
        <label className="flex flex-col gap-1.5 text-sm font-medium text-gray-800">
          Description
          <textarea
            className={inputClasses({ className: "h-20 py-2" })}
            value={description}
            maxLength={10_000}
            onChange={(event) => setDescription(event.target.value)}
            data-testid="insight-description"
          />
        </label>
        <label className="flex flex-col gap-1.5 text-sm font-medium text-gray-800">
          Add to dashboard
          <select className={inputClasses({ className: "pr-8" })} value={dashboard} onChange={(event) => setDashboard(event.target.value)} data-testid="insight-dashboard">
            <option value="">{dashboards.isPending ? "Loading dashboards…" : "No dashboard"}</option>
            {dashboards.data?.results.map((one) => (
              <option key={one.id} value={String(one.id)} disabled={one.user_access_level !== "editor"}>
                {one.name || "Untitled dashboard"}
                {insight?.dashboards.includes(one.id) ? " (already on it)" : ""}
              </option>
            ))}
            {returnTo !== null && !dashboards.data?.results.some((one) => one.id === returnTo) && <option value={String(returnTo)}>Dashboard {returnTo}</option>}
          </select>
        </label>
      </form>
    </Dialog>
  );
}
