/** Every database read and write of actions (Prisma). */
import type { Prisma } from "@/generated/prisma/client";
import { USER_BASIC_COLUMNS } from "@/server/accounts/present";
import type { DbClient, Tx } from "@/server/db/transaction";
import type { ActionListQuery } from "./contract";

const ACTION_INCLUDE = { createdBy: { select: USER_BASIC_COLUMNS } } as const;

export type ActionRow = Prisma.ActionGetPayload<{ include: typeof ACTION_INCLUDE }>;

export interface ActionWrite {
  name: string;
  description: string;
  tags: string[];
  postToSlack: boolean;
  slackMessageFormat: string;
  steps: unknown[];
  deleted: boolean;
  pinnedAt: Date | null;
  creationContext?: string | null;
}

export function findAction(client: DbClient, projectId: number, id: number): Promise<ActionRow | null> {
  return client.action.findFirst({ where: { id, projectId }, include: ACTION_INCLUDE });
}

/** Live actions, pinned first, then by name. */
export function listActionRows(client: DbClient, projectId: number, query: ActionListQuery): Promise<ActionRow[]> {
  return client.action.findMany({
    where: { projectId, deleted: false, ...(query.search ? { name: { contains: query.search, mode: "insensitive" } } : {}) },
    include: ACTION_INCLUDE,
    orderBy: [{ pinnedAt: { sort: "desc", nulls: "last" } }, { name: "asc" }, { id: "asc" }],
  });
}

/** The live action of the project with this name (case as written), other than `exceptId`. */
export function findLiveByName(client: DbClient, projectId: number, name: string, exceptId: number | null): Promise<{ id: number } | null> {
  return client.action.findFirst({ where: { projectId, name, deleted: false, ...(exceptId === null ? {} : { NOT: { id: exceptId } }) }, select: { id: true } });
}

/** The steps of live actions by id (queries expanding ActionsNode). */
export function actionSteps(client: DbClient, projectId: number, ids: number[]): Promise<{ id: number; name: string; steps: Prisma.JsonValue }[]> {
  return client.action.findMany({ where: { projectId, id: { in: ids }, deleted: false }, select: { id: true, name: true, steps: true } });
}

/** Which of these ids are live actions of the project (the id column only). */
export async function liveActionIdsIn(client: DbClient, projectId: number, ids: number[]): Promise<Set<number>> {
  const rows = await client.action.findMany({ where: { projectId, id: { in: ids }, deleted: false }, select: { id: true } });
  return new Set(rows.map((row) => row.id));
}

export async function insertAction(tx: Tx, projectId: number, createdById: number, action: ActionWrite): Promise<number> {
  const row = await tx.action.create({
    data: { projectId, createdById, ...action, tags: action.tags as Prisma.InputJsonValue, steps: action.steps as Prisma.InputJsonValue },
    select: { id: true },
  });
  return row.id;
}

export async function updateActionRow(tx: Tx, id: number, action: Partial<ActionWrite>): Promise<void> {
  const { tags, steps, ...rest } = action;
  await tx.action.update({
    where: { id },
    data: {
      ...rest,
      ...(tags === undefined ? {} : { tags: tags as Prisma.InputJsonValue }),
      ...(steps === undefined ? {} : { steps: steps as Prisma.InputJsonValue }),
    },
  });
}
