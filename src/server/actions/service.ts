/**
 * Actions: PostHog's rules (posthog/api/action.py) over the store. A name is unique among the
 * project's live actions; DELETE is refused (405) and PATCH `deleted: true` soft-deletes.
 * Queries read an action's steps through `actionDefinitions`.
 */
import { changesBetween, logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { DbClient } from "@/server/db/transaction";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { pageWindow } from "@/server/input/page";
import type { PropertyGroup } from "@/server/properties/contract";
import type { ActionCreateBody, ActionListQuery, ActionStep, ActionUpdateBody } from "./contract";
import { actionTree, stepTree } from "./matching";
import { presentAction, storedSteps, type ActionResource } from "./present";
import * as store from "./store";

const ACTIVITY_SCOPE = "Action";
const notFound = () => new AppError("not_found", "Not found.");

async function actionOf(client: DbClient, projectId: number, id: number): Promise<ActionResource> {
  const row = await store.findAction(client, projectId, id);
  if (!row) throw notFound();
  return presentAction(row);
}

export function getAction(ctx: Context, id: number): Promise<ActionResource> {
  return actionOf(ctx.db.prisma, ctx.project.id, id);
}

export async function listActions(ctx: Context, query: ActionListQuery): Promise<{ count: number; results: ActionResource[] }> {
  const rows = await store.listActionRows(ctx.db.prisma, ctx.project.id, query);
  const { take, skip } = pageWindow(query);
  return { count: rows.length, results: rows.slice(skip, skip + take).map(presentAction) };
}

async function checkName(client: DbClient, projectId: number, name: string, selfId: number | null): Promise<void> {
  const clash = await store.findLiveByName(client, projectId, name, selfId);
  if (clash) throw new AppError("invalid_input", `This project already has an action with this name, ID ${clash.id}`, "name", { code: "unique" });
}

/** Every step must compile (a selector it cannot read is a 400 naming the step). */
function checkSteps(steps: readonly ActionStep[]): void {
  steps.forEach((step, index) => {
    try {
      stepTree(step);
    } catch (error) {
      if (error instanceof AppError) throw new AppError("invalid_input", error.message, `steps__${index}__selector`);
      throw error;
    }
  });
}

function tracked(action: { name: string; description: string; tags: unknown; steps: unknown; deleted: boolean }) {
  return { name: action.name, description: action.description, tags: action.tags, steps: action.steps, deleted: action.deleted };
}

export async function createAction(ctx: Context, body: ActionCreateBody): Promise<ActionResource> {
  const projectId = ctx.project.id;
  checkSteps(body.steps);
  await checkName(ctx.db.prisma, projectId, body.name, null);
  const id = await inTransaction(ctx.db, async (tx) => {
    const id = await store.insertAction(tx, projectId, ctx.actor.id, {
      name: body.name,
      description: body.description,
      tags: body.tags,
      postToSlack: body.post_to_slack,
      slackMessageFormat: body.slack_message_format,
      steps: body.steps,
      deleted: false,
      pinnedAt: body.pinned_at ? new Date(body.pinned_at) : null,
      creationContext: body.creation_context ?? null,
    });
    await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
    return id;
  });
  return actionOf(ctx.db.prisma, projectId, id);
}

export async function updateAction(ctx: Context, id: number, body: ActionUpdateBody): Promise<ActionResource> {
  const projectId = ctx.project.id;
  const current = await store.findAction(ctx.db.prisma, projectId, id);
  if (!current) throw notFound();
  const next = {
    name: body.name ?? current.name,
    description: body.description ?? current.description,
    tags: body.tags ?? (current.tags as string[]),
    postToSlack: body.post_to_slack ?? current.postToSlack,
    slackMessageFormat: body.slack_message_format ?? current.slackMessageFormat,
    steps: body.steps ?? storedSteps(current.steps),
    deleted: body.deleted ?? current.deleted,
    pinnedAt: body.pinned_at === undefined ? current.pinnedAt : body.pinned_at === null ? null : new Date(body.pinned_at),
  };
  if (body.steps) checkSteps(body.steps);
  if (!next.deleted && (next.name !== current.name || (current.deleted && !next.deleted))) await checkName(ctx.db.prisma, projectId, next.name, id);
  const changes = changesBetween(tracked({ ...current, steps: current.steps }), tracked(next));
  await inTransaction(ctx.db, async (tx) => {
    await store.updateActionRow(tx, id, next);
    if (changes.length > 0) {
      const activity = next.deleted && !current.deleted ? "deleted" : !next.deleted && current.deleted ? "restored" : "updated";
      await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity, name: next.name, changes });
    }
  });
  return actionOf(ctx.db.prisma, projectId, id);
}

/** An action a query reads: its name and its steps as one filter tree. */
export interface ActionDefinition {
  id: number;
  name: string;
  tree: PropertyGroup;
}

/**
 * The live actions `ids` name, as filter trees; an id that is not a live action of the
 * project is a 400 naming it.
 */
export async function actionDefinitions(client: DbClient, projectId: number, ids: readonly number[]): Promise<Map<number, ActionDefinition>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await store.actionSteps(client, projectId, unique);
  const found = new Map(rows.map((row) => [row.id, { id: row.id, name: row.name, tree: actionTree(storedSteps(row.steps)) }]));
  const missing = unique.find((id) => !found.has(id));
  if (missing !== undefined) throw new AppError("invalid_input", `Action ${missing} does not exist.`, "query");
  return found;
}

/** Which of `ids` are live actions of the project, in one read: for callers that name every unknown one at once. */
export async function liveActionIds(client: DbClient, projectId: number, ids: readonly number[]): Promise<Set<number>> {
  const unique = [...new Set(ids)];
  return unique.length === 0 ? new Set() : store.liveActionIdsIn(client, projectId, unique);
}

/**
 * PostHog's events list `action_id`: the list's property filters with the action's steps ANDed
 * to them. An unknown or deleted action is a 400 naming `action_id`.
 */
export async function narrowToAction<Query extends { properties: PropertyGroup | null }>(ctx: Context, actionId: number | null, query: Query): Promise<Query> {
  if (actionId === null) return query;
  const definitions = await actionDefinitions(ctx.db.prisma, ctx.project.id, [actionId]).catch((error: unknown) => {
    throw error instanceof AppError ? new AppError("invalid_input", `Action ${actionId} does not exist.`, "action_id") : error;
  });
  const tree = definitions.get(actionId)!.tree;
  return { ...query, properties: query.properties ? { type: "AND", values: [query.properties, tree] } : tree };
}
