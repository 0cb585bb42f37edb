/** Every database read and write of surveys (Prisma). */
import { Prisma } from "@/generated/prisma/client";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";
import type { Database } from "@/server/db";
import type { EventRow } from "@/server/db/events";
import { isUniqueViolation, type DbClient, type Tx } from "@/server/db/transaction";
import type { PropertyGroup } from "@/server/properties/contract";
import type { SurveyListQuery } from "./contract";

// The linked and targeting flags in PostHog's minimal shape (a read of the flags table: declared in the architecture test).
const FLAG = { select: { id: true, projectId: true, name: true, key: true, filters: true, deleted: true, active: true } } as const;
const SURVEY_INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS }, linkedFlag: FLAG, targetingFlag: FLAG, internalTargetingFlag: FLAG } as const;

export type SurveyRow = Prisma.SurveyGetPayload<{ include: typeof SURVEY_INCLUDE }>;
type JsonObject = Record<string, unknown>;
/** A row's fields; `conditions` and `appearance` null is SQL NULL. */
export type SurveyWrite = Omit<Prisma.SurveyUncheckedCreateInput, "id" | "projectId" | "createdById" | "createdAt" | "updatedAt" | "conditions" | "appearance"> & {
  conditions?: JsonObject | null;
  appearance?: JsonObject | null;
};

function jsonColumns<T extends Partial<SurveyWrite>>(survey: T) {
  const { conditions, appearance, ...rest } = survey;
  const column = (value: JsonObject | null | undefined) => (value === undefined ? undefined : value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));
  return { ...rest, conditions: column(conditions), appearance: column(appearance) };
}

export function findSurvey(client: DbClient, projectId: number, id: string): Promise<SurveyRow | null> {
  return client.survey.findFirst({ where: { id, projectId }, include: SURVEY_INCLUDE });
}

/** Newest first: every survey, or only the archived (or the unarchived) ones when `archived` says. */
export function listSurveyRows(client: DbClient, projectId: number, query: Pick<SurveyListQuery, "search" | "archived">): Promise<SurveyRow[]> {
  return client.survey.findMany({
    where: {
      projectId,
      ...(query.archived ? { archived: query.archived === "true" } : {}),
      ...(query.search ? { name: { contains: query.search, mode: "insensitive" } } : {}),
    },
    include: SURVEY_INCLUDE,
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
}

/** What the public list and remote config serve: every survey that is not archived. */
export function liveSurveyRows(client: DbClient, projectId: number): Promise<SurveyRow[]> {
  return client.survey.findMany({ where: { projectId, archived: false }, include: SURVEY_INCLUDE, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** Whether the project has a running survey (launched, not stopped, not archived). */
export async function hasRunningSurvey(client: DbClient, projectId: number): Promise<boolean> {
  return (await client.survey.findFirst({ where: { projectId, archived: false, startDate: { not: null }, endDate: null }, select: { id: true } })) !== null;
}

/** Launched, not stopped surveys with an iteration schedule (PostHog's task does not skip archived ones either). */
export function recurringSurveyRows(client: DbClient): Promise<SurveyRow[]> {
  return client.survey.findMany({ where: { startDate: { not: null }, endDate: null, iterationCount: { not: null } }, include: SURVEY_INCLUDE, orderBy: { id: "asc" } });
}

export async function nameTaken(client: DbClient, projectId: number, name: string, exceptId: string | null): Promise<boolean> {
  return (await client.survey.findFirst({ where: { projectId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) }, select: { id: true } })) !== null;
}

export async function insertSurvey(tx: Tx, projectId: number, createdById: number, id: string, survey: SurveyWrite): Promise<void> {
  await tx.survey.create({ data: { ...jsonColumns(survey), id, projectId, createdById } });
}

/**
 * The failure of `insertSurvey` or `updateSurveyRow` when another survey of the project took
 * the name after the service checked it (the unique index on project and name).
 */
export function isDuplicateSurveyName(error: unknown): boolean {
  return isUniqueViolation(error, "surveys_project_id_name_key");
}

export async function updateSurveyRow(tx: Tx, id: string, survey: Partial<SurveyWrite>): Promise<void> {
  await tx.survey.update({ where: { id }, data: jsonColumns(survey) });
}

export async function deleteSurveyRow(tx: Tx, id: string): Promise<void> {
  await tx.survey.delete({ where: { id } });
}

/** Events read per page, and at most per event name, for a survey's results. */
const EVENTS_PAGE = 5000;
export const MAX_SURVEY_EVENTS = 200_000;

/**
 * The events named `event` that `filter` matches (the survey's id and any person filters),
 * between `after` and `before`, through the event store (PostgreSQL or ClickHouse alike),
 * newest first, at most MAX_SURVEY_EVENTS.
 */
export async function surveyEvents(db: Database, projectId: number, event: string, filter: PropertyGroup, after: Date | null, before: Date | null, now: Date): Promise<EventRow[]> {
  const rows: EventRow[] = [];
  let cursor: { timestamp: Date; uuid: string } | null = null;
  for (;;) {
    const page = await db.events.list(
      projectId,
      { format: "json", limit: EVENTS_PAGE, offset: 0, after, before, beforeUuid: null, event, distinctId: null, personId: null, properties: filter },
      { limit: EVENTS_PAGE, offset: 0, cursor, now },
    );
    rows.push(...page);
    if (page.length < EVENTS_PAGE || rows.length >= MAX_SURVEY_EVENTS) return rows.slice(0, MAX_SURVEY_EVENTS);
    const last = page[page.length - 1]!;
    cursor = { timestamp: last.timestamp, uuid: last.uuid };
  }
}

/** The surveys shown only to users for whom each of these flags is on (`linked_flag`): a flag's `surveys`. */
export function surveysLinkedToFlags(client: DbClient, projectId: number, flagIds: readonly number[]): Promise<SurveyRow[]> {
  return client.survey.findMany({ where: { projectId, linkedFlagId: { in: [...flagIds] } }, include: SURVEY_INCLUDE, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}
