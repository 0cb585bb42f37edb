/**
 * Early-access features: PostHog's rules (products/early_access_features/backend/api.py) over
 * the store. Each feature is backed by one flag, created with it unless `feature_flag_id`
 * names one. A release stage (concept, alpha, beta, general availability) gives that flag the
 * enrolment super condition — the person property `$feature_enrollment/<key>` exact "true" —
 * which flags/evaluation.ts checks before the flag's groups: a person who opted in gets the
 * flag, one who opted out does not, everyone else gets the groups' answer.
 */
import { randomUUID } from "node:crypto";
import { logActivity } from "@/server/activity/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";
import { inTransaction } from "@/server/db/transaction";
import { AppError } from "@/server/errors";
import { parsePropertiesParam } from "@/server/events/contract";
import { createFlag, getFlag, requireFlagWrite, updateFlag } from "@/server/flags/service";
import { pageWindow } from "@/server/input/page";
import { listPersons } from "@/server/persons/service";
import { enrollmentProperty, isReleaseStage, type EafCreateBody, type EafListQuery, type EafUpdateBody, type EarlyAccessStage, type EnrolledPerson, type PublicEarlyAccessFeature } from "./contract";
import { presentFeature, presentPublicFeature, type EafResource } from "./present";
import * as store from "./store";

const ACTIVITY_SCOPE = "EarlyAccessFeature";
const notFound = () => new AppError("not_found", "Not found.");

/** The super condition PostHog gives a release-stage feature's flag. */
export function enrollmentSuperGroups(flagKey: string) {
  return [{ properties: [{ key: enrollmentProperty(flagKey), type: "person" as const, operator: "exact", value: ["true"] }], rollout_percentage: 100, variant: null }];
}

/** PostHog's `slugify(name)` as the new flag's key: lower case, runs of other characters as one hyphen. */
export function flagKeyFor(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_\s-]/g, "")
    .trim()
    .replace(/[\s-]+/g, "-")
    .slice(0, 400);
}

async function featureOf(ctx: Context, id: string): Promise<EafResource> {
  const row = await store.findFeature(ctx.db.prisma, ctx.project.id, id);
  if (!row) throw notFound();
  return presentFeature(row);
}

const uuidLike = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

export function getFeature(ctx: Context, id: string): Promise<EafResource> {
  if (!uuidLike(id)) throw notFound();
  return featureOf(ctx, id.toLowerCase());
}

export async function listFeatures(ctx: Context, query: EafListQuery): Promise<{ count: number; results: EafResource[] }> {
  const rows = await store.listFeatureRows(ctx.db.prisma, ctx.project.id, query.stage ? [query.stage] : null);
  const { take, skip } = pageWindow(query);
  return { count: rows.length, results: rows.slice(skip, skip + take).map(presentFeature) };
}

/** Turns the enrolment condition of the feature's flag on (release stages) or off. */
async function setEnrollment(ctx: Context, flagId: number, flagKey: string, on: boolean): Promise<void> {
  await updateFlag(ctx, flagId, { filters: on ? { super_groups: enrollmentSuperGroups(flagKey), feature_enrollment: true } : { super_groups: null, feature_enrollment: null } });
}

/** An existing flag may back a feature only if no other feature has it, and it is a boolean person flag. */
async function checkExistingFlag(ctx: Context, flagId: number): Promise<{ id: number; key: string }> {
  requireFlagWrite(ctx); // the feature adds its enrolment condition to that flag
  const flag = await getFlag(ctx, flagId).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "not_found") throw new AppError("invalid_input", `Invalid pk "${flagId}" - object does not exist.`, "feature_flag_id");
    throw error;
  });
  if (flag.deleted) throw new AppError("invalid_input", `Invalid pk "${flagId}" - object does not exist.`, "feature_flag_id");
  if (await store.featureIdOfFlag(ctx.db.prisma, flagId)) throw new AppError("invalid_input", `Linked feature flag ${flag.key} already has a feature attached to it.`, "feature_flag_id");
  if (flag.filters.aggregation_group_type_index !== null) throw new AppError("invalid_input", "Group-based feature flags are not supported for Early Access Features.", "feature_flag_id");
  if (flag.filters.multivariate) throw new AppError("invalid_input", "Multivariate feature flags are not supported for Early Access Features.", "feature_flag_id");
  return { id: flag.id, key: flag.key };
}

export async function createFeature(ctx: Context, body: EafCreateBody): Promise<EafResource> {
  const projectId = ctx.project.id;
  const release = isReleaseStage(body.stage);
  let flag: { id: number; key: string };
  if (body.feature_flag_id) {
    flag = await checkExistingFlag(ctx, body.feature_flag_id);
    if (release) await setEnrollment(ctx, flag.id, flag.key, true);
  } else {
    const key = flagKeyFor(body.name);
    if (!key) throw new AppError("invalid_input", "The name must contain a letter or digit to make the flag's key from.", "name");
    flag = await createFlag(ctx, {
      key,
      name: `Feature Flag for Feature ${body.name}`,
      filters: {
        groups: [{ properties: [], rollout_percentage: 0, variant: null }],
        multivariate: null,
        aggregation_group_type_index: null,
        payloads: {},
        ...(release ? { super_groups: enrollmentSuperGroups(key), feature_enrollment: true } : {}),
      },
      active: true,
      deleted: false,
      ensure_experience_continuity: false,
      tags: [],
    });
  }
  const id = randomUUID();
  try {
    await inTransaction(ctx.db, async (tx) => {
      await store.insertFeature(tx, projectId, ctx.actor.id, id, flag.id, {
        name: body.name,
        description: body.description,
        stage: body.stage,
        documentationUrl: body.documentation_url,
        payload: body.payload,
      });
      await logActivity(tx, { projectId, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: id, activity: "created", name: body.name });
    });
  } catch (error) {
    if (!store.isFlagTaken(error)) throw error;
    // Another feature took the flag since checkExistingFlag: the flag's enrolment follows that one's stage.
    const winner = await store.featureIdOfFlag(ctx.db.prisma, flag.id);
    const winnerStage = winner ? (await featureOf(ctx, winner)).stage : null;
    if (winnerStage !== null && isReleaseStage(winnerStage) !== release) await setEnrollment(ctx, flag.id, flag.key, isReleaseStage(winnerStage));
    throw new AppError("invalid_input", `Linked feature flag ${flag.key} already has a feature attached to it.`, "feature_flag_id");
  }
  return featureOf(ctx, id);
}

export async function updateFeature(ctx: Context, id: string, body: EafUpdateBody): Promise<EafResource> {
  const current = await getFeature(ctx, id);
  const stageChanged = body.stage !== undefined && body.stage !== current.stage;
  if (stageChanged && isReleaseStage(body.stage!) !== isReleaseStage(current.stage)) {
    await setEnrollment(ctx, current.feature_flag.id, current.feature_flag.key, isReleaseStage(body.stage!));
  }
  await inTransaction(ctx.db, async (tx) => {
    await store.updateFeatureRow(tx, current.id, {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.stage !== undefined ? { stage: body.stage } : {}),
      ...(body.documentation_url !== undefined ? { documentationUrl: body.documentation_url } : {}),
      ...(body.payload !== undefined ? { payload: body.payload } : {}),
    });
    const changes = stageChanged ? [{ field: "stage", before: current.stage, after: body.stage }] : undefined;
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: current.id, activity: "updated", name: body.name ?? current.name, changes });
  });
  return featureOf(ctx, current.id);
}

/** DELETE: the feature goes, its flag stays without the enrolment condition (as PostHog does). */
export async function deleteFeature(ctx: Context, id: string): Promise<void> {
  const current = await getFeature(ctx, id);
  if (current.feature_flag.filters.super_groups && !current.feature_flag.deleted) await setEnrollment(ctx, current.feature_flag.id, current.feature_flag.key, false);
  await inTransaction(ctx.db, async (tx) => {
    await store.deleteFeatureRow(tx, current.id);
    await logActivity(tx, { projectId: ctx.project.id, userId: ctx.actor.id, scope: ACTIVITY_SCOPE, itemId: current.id, activity: "deleted", name: current.name });
  });
}

/** Persons who opted into the feature (`$feature_enrollment/<key>` true), for its page. */
export async function enrolledPersons(ctx: Context, id: string, limit = 100): Promise<{ results: EnrolledPerson[]; more: boolean }> {
  const feature = await getFeature(ctx, id);
  const properties = parsePropertiesParam(JSON.stringify([{ key: enrollmentProperty(feature.feature_flag.key), value: ["true"], operator: "exact", type: "person" }]));
  const { results, more } = await listPersons(ctx, { distinctId: null, email: null, search: null, properties, limit, offset: 0 });
  return { results: results.map((person) => ({ uuid: person.uuid, distinct_id: person.distinct_ids[0] ?? "", name: person.name })), more };
}

/** The public list posthog-js reads (`GET /api/early_access_features/?token=`). */
export async function publicFeatures(db: Database, projectId: number, stages: readonly EarlyAccessStage[]): Promise<PublicEarlyAccessFeature[]> {
  const rows = await store.listFeatureRows(db.prisma, projectId, stages);
  return rows.filter((row) => !row.featureFlag.deleted).map(presentPublicFeature);
}

/** Each flag's early-access features as the public endpoint shows them (PostHog's `features` of a flag). */
export async function featuresByFlag(ctx: Context, flagIds: readonly number[]): Promise<Map<number, PublicEarlyAccessFeature[]>> {
  const byFlag = new Map<number, PublicEarlyAccessFeature[]>();
  if (flagIds.length === 0) return byFlag;
  for (const row of await store.featuresOfFlags(ctx.db.prisma, ctx.project.id, flagIds)) {
    byFlag.set(row.featureFlagId, [...(byFlag.get(row.featureFlagId) ?? []), presentPublicFeature(row)]);
  }
  return byFlag;
}
