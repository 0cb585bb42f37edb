"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ProjectGate } from "@/components/settings/project-gate";
import { Button, Card, FormAlert, PageHeader, SelectField, TextField } from "@/components/ui";
import { errorMessage } from "@/trpc/errors";
import { useTRPC } from "@/trpc/react";
import {
  BATCH_EXPORT_INTERVALS,
  BATCH_EXPORT_MODELS,
  type BatchExportCreateInput,
  type BatchExportModel,
  DESTINATION_TYPES,
  type DestinationType,
  FILE_FORMATS,
  SUPPORTED_COMPRESSIONS,
} from "@/server/batch-exports/contract";
import { FORMAT_LABELS, INTERVAL_LABELS, MODEL_LABELS, MODEL_TIMES } from "./batch-export-shared";

type Interval = (typeof BATCH_EXPORT_INTERVALS)[number];
type FileFormat = (typeof FILE_FORMATS)[number];

interface Draft {
  name: string;
  model: BatchExportModel;
  interval: Interval;
  type: DestinationType;
  /** S3 only. */
  format: FileFormat;
  /** S3 only; "" for none. */
  compression: string;
  /** Every type's fields, by name; only the chosen type's are sent. */
  fields: Record<string, string>;
}

interface FieldSpec {
  name: string;
  label: string;
  required?: boolean;
  placeholder?: string;
  hint?: string;
  type?: "text" | "password" | "url" | "number";
}

/** Each destination's fields (PostHog's config keys). */
const FIELDS: Record<DestinationType, FieldSpec[]> = {
  S3: [
    { name: "bucket_name", label: "Bucket", required: true, placeholder: "my-events" },
    { name: "region", label: "Region", placeholder: "us-east-1" },
    { name: "prefix", label: "Key prefix", placeholder: "burrow/{table}/{year}/{month}/{day}", hint: "{year} {month} {day} {hour} {minute} {second} {table} {data_interval_start} {data_interval_end}" },
    { name: "endpoint_url", label: "Endpoint URL", type: "url", placeholder: "https://s3.example.com", hint: "For S3-compatible storage (MinIO, R2…); empty for AWS." },
    { name: "aws_access_key_id", label: "Access key ID", required: true },
    { name: "aws_secret_access_key", label: "Secret access key", required: true, type: "password", hint: "Stored encrypted, shown masked." },
    { name: "max_file_size_mb", label: "Split files at (MiB)", type: "number", placeholder: "one file per interval", hint: "Numbered files, each closed once it reaches this size; empty for one file per interval." },
  ],
  Postgres: [
    { name: "host", label: "Host", required: true, placeholder: "db.example.com" },
    { name: "port", label: "Port", type: "number", placeholder: "5432" },
    { name: "database", label: "Database", required: true },
    { name: "user", label: "User", required: true },
    { name: "password", label: "Password", type: "password", hint: "Stored encrypted, shown masked." },
    { name: "schema", label: "Schema", placeholder: "public" },
    { name: "table_name", label: "Table", placeholder: "(the model's name)", hint: "Created when missing; rows are upserted by their key (uuid, distinct id or session id)." },
  ],
  HTTP: [
    { name: "url", label: "URL", required: true, type: "url", placeholder: "https://eu.i.posthog.com/batch/", hint: "Each batch is POSTed as PostHog's /batch body." },
    { name: "token", label: "Project token", type: "password", hint: "Sent as api_key; stored encrypted, shown masked." },
  ],
};

function bodyOf(draft: Draft): BatchExportCreateInput {
  const config: Record<string, unknown> = {};
  for (const field of FIELDS[draft.type]) {
    const value = (draft.fields[field.name] ?? "").trim();
    if (value !== "") config[field.name] = field.type === "number" ? Number(value) : value;
  }
  if (draft.type === "S3") Object.assign(config, { file_format: draft.format, compression: draft.compression || null });
  if (draft.type === "Postgres" && config.table_name === undefined) config.table_name = draft.model;
  return { name: draft.name, model: draft.model, interval: draft.interval, destination: { type: draft.type, config } as BatchExportCreateInput["destination"] };
}

/** HTTP sends PostHog's /batch, events only. */
const destinationsOf = (model: BatchExportModel) => DESTINATION_TYPES.filter((type) => model === "events" || type !== "HTTP");

export function NewBatchExportPage() {
  const router = useRouter();
  return (
    <div className="flex flex-col gap-6" data-testid="new-batch-export-page">
      <PageHeader
        eyebrow={
          <Link href="/batch-exports" className="hover:underline">
            Batch exports
          </Link>
        }
        title="New batch export"
        description="Each completed interval's rows (events by the time Burrow received them, persons and sessions by when they changed) go to the destination once the interval ends."
      />
      <ProjectGate testId="batch-export-project">{(project) => <BatchExportForm projectId={project.id} onSaved={(id) => router.push(`/batch-exports/${id}`)} />}</ProjectGate>
    </div>
  );
}

function BatchExportForm({ projectId, onSaved }: { projectId: number; onSaved: (id: string) => void }) {
  const trpc = useTRPC();
  const [draft, setDraft] = useState<Draft>({ name: "", model: "events", interval: "hour", type: "S3", format: "JSONLines", compression: "gzip", fields: {} });
  const create = useMutation(trpc.batchExports.create.mutationOptions());
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch });
  const submit = async () => {
    try {
      const saved = await create.mutateAsync({ projectId, batchExport: bodyOf(draft) });
      onSaved(saved.id);
    } catch {
      // Shown below from the mutation's error.
    }
  };
  return (
    <form
      className="flex max-w-3xl flex-col gap-4"
      data-testid="batch-export-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Card className="flex flex-col gap-4 p-4">
        <TextField label="Name" value={draft.name} required maxLength={400} onChange={(e) => set({ name: e.target.value })} testId="batch-export-name" />
        <div className="grid gap-4 sm:grid-cols-3">
          <SelectField
            label="Model"
            value={draft.model}
            hint={`Rows selected ${MODEL_TIMES[draft.model]}.`}
            onChange={(e) => {
              const model = e.target.value as BatchExportModel;
              set({ model, type: destinationsOf(model).includes(draft.type) ? draft.type : "S3" });
            }}
            testId="batch-export-model"
          >
            {BATCH_EXPORT_MODELS.map((model) => (
              <option key={model} value={model}>
                {MODEL_LABELS[model]}
              </option>
            ))}
          </SelectField>
          <SelectField label="Frequency" value={draft.interval} onChange={(e) => set({ interval: e.target.value as Interval })} testId="batch-export-interval">
            {BATCH_EXPORT_INTERVALS.map((interval) => (
              <option key={interval} value={interval}>
                {INTERVAL_LABELS[interval]}
              </option>
            ))}
          </SelectField>
          <SelectField label="Destination" value={draft.type} onChange={(e) => set({ type: e.target.value as DestinationType })} testId="batch-export-type">
            {destinationsOf(draft.model).map((type) => (
              <option key={type} value={type}>
                {type === "S3" ? "S3" : type === "Postgres" ? "PostgreSQL" : "HTTP (PostHog /batch)"}
              </option>
            ))}
          </SelectField>
        </div>
        {draft.type === "S3" && (
          <div className="grid gap-4 sm:grid-cols-3">
            <SelectField
              label="File format"
              value={draft.format}
              onChange={(e) => {
                const format = e.target.value as FileFormat;
                set({ format, compression: SUPPORTED_COMPRESSIONS[format][0]! });
              }}
              testId="batch-export-file-format"
            >
              {FILE_FORMATS.map((format) => (
                <option key={format} value={format}>
                  {FORMAT_LABELS[format]}
                </option>
              ))}
            </SelectField>
            <SelectField
              label="Compression"
              value={draft.compression}
              hint={draft.format === "Parquet" ? "Of the file's pages." : "Of the whole file."}
              onChange={(e) => set({ compression: e.target.value })}
              testId="batch-export-compression"
            >
              {SUPPORTED_COMPRESSIONS[draft.format].map((compression) => (
                <option key={compression} value={compression}>
                  {compression}
                </option>
              ))}
              <option value="">none</option>
            </SelectField>
          </div>
        )}
      </Card>
      <Card className="grid gap-4 p-4 sm:grid-cols-2" data-testid="batch-export-config">
        {FIELDS[draft.type].map((field) => (
          <TextField
            key={`${draft.type}-${field.name}`}
            label={field.label}
            type={field.type ?? "text"}
            required={field.required}
            placeholder={field.placeholder}
            hint={field.hint}
            autoComplete={field.type === "password" ? "new-password" : "off"}
            value={draft.fields[field.name] ?? ""}
            onChange={(e) => set({ fields: { ...draft.fields, [field.name]: e.target.value } })}
            testId={`batch-export-${field.name}`}
          />
        ))}
        <p className="text-xs text-gray-600 sm:col-span-2">Private and loopback addresses are refused unless BURROW_OUTBOUND_ALLOWLIST lists them.</p>
      </Card>
      {create.error && <FormAlert testId="batch-export-error">{errorMessage(create.error)}</FormAlert>}
      <div className="flex gap-2">
        <Button type="submit" loading={create.isPending} data-testid="batch-export-save">
          Create batch export
        </Button>
        <Link href="/batch-exports" className="inline-flex items-center px-3 text-sm text-gray-700 hover:underline">
          Cancel
        </Link>
      </div>
    </form>
  );
}
