import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma } from "@/generated/prisma/client";
import type { Database } from "./client";
import { createTestDatabase, testDbKind } from "@/test-support/db";

/** The models of prisma/schema.prisma, read with just enough parsing for this check. */
interface SchemaField {
  column: string;
  type: string;
  optional: boolean;
  list: boolean;
}
function readSchema(): Map<string, { table: string; fields: SchemaField[] }> {
  const text = fs.readFileSync(path.resolve("prisma/schema.prisma"), "utf8");
  const models = new Map<string, { table: string; fields: SchemaField[] }>();
  const modelNames = new Set([...text.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]!));
  for (const [, name, body] of text.matchAll(/^model (\w+) \{\n([\s\S]*?)^\}/gm)) {
    const table = /@@map\("(\w+)"\)/.exec(body!)?.[1] ?? name!;
    const fields: SchemaField[] = [];
    for (const line of body!.split("\n")) {
      const match = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!match || line.trim().startsWith("//") || line.trim().startsWith("@@")) continue;
      const [, field, type, list, optional, rest] = match;
      if (modelNames.has(type!)) continue; // a relation, not a column
      fields.push({
        column: /@map\("(\w+)"\)/.exec(rest!)?.[1] ?? field!,
        type: type!,
        optional: optional === "?",
        list: list === "[]",
      });
    }
    models.set(name!, { table, fields });
  }
  return models;
}

const POSTGRES_TYPES: Record<string, string[]> = {
  Int: ["integer"],
  BigInt: ["bigint"],
  String: ["text", "uuid", "character varying"],
  Boolean: ["boolean"],
  // `@db.Date` columns are dates (definition_volumes.day).
  DateTime: ["timestamp with time zone", "date"],
  Json: ["jsonb"],
  Bytes: ["bytea"],
  Float: ["double precision"],
};

const at = new Date("2026-01-02T03:04:05.678Z");

describe(`schema and migrations agree (${testDbKind})`, () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.close();
  });

  it("creates exactly the tables and columns of prisma/schema.prisma, with their types and nullability", async () => {
    const schema = readSchema();
    expect([...schema.keys()].sort()).toEqual(Object.values(Prisma.ModelName).sort());
    const columns = await db.sql.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
    );
    const actual = new Map<string, string>();
    for (const c of columns) actual.set(`${c.table_name}.${c.column_name}`, `${c.data_type} ${c.is_nullable === "YES" ? "null" : "not null"}`);
    const expected = new Map<string, string[]>();
    for (const { table, fields } of schema.values()) {
      for (const f of fields) {
        const types = f.list ? ["ARRAY"] : POSTGRES_TYPES[f.type];
        if (!types) throw new Error(`add the PostgreSQL type of ${f.type} to this test`);
        // Prisma creates scalar-list columns without NOT NULL (a list cannot be optional).
        const nullability = f.list ? ["null"] : [f.optional ? "null" : "not null"];
        expected.set(`${table}.${f.column}`, types.flatMap((t) => nullability.map((n) => `${t} ${n}`)));
      }
    }
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [column, options] of expected) expect(options, column).toContain(actual.get(column));
  });

  it("round-trips a row of every model through the Prisma client", async () => {
    const p = db.prisma;
    const seen = new Set<string>();
    async function roundTrip<T extends object>(model: Prisma.ModelName, created: T, read: () => Promise<T | null>) {
      expect(await read(), model).toEqual(created);
      seen.add(model);
    }

    const organization = await p.organization.create({ data: { name: "Acme", createdAt: at } });
    await roundTrip("Organization", organization, () => p.organization.findUnique({ where: { id: organization.id } }));
    const project = await p.project.create({
      data: { organizationId: organization.id, name: "Web", apiToken: "phc_test", secretApiTokenHash: "sha256$x", timezone: "Europe/Berlin", anonymizeIps: true },
    });
    await roundTrip("Project", project, () => p.project.findUnique({ where: { id: project.id } }));
    const user = await p.user.create({
      data: {
        email: "ada@example.com",
        passwordHash: "$argon2id$x",
        firstName: "Ada",
        lastName: "Lovelace",
        distinctId: "user-distinct-id",
        isEmailVerified: true,
        hedgehogConfig: { color: "blue", nested: [1, "two", null] },
        currentProjectId: project.id,
        lastLoginAt: at,
      },
    });
    await roundTrip("User", user, () => p.user.findUnique({ where: { id: user.id } }));
    const membership = await p.organizationMembership.create({ data: { organizationId: organization.id, userId: user.id, level: 15 } });
    await roundTrip("OrganizationMembership", membership, () => p.organizationMembership.findUnique({ where: { id: membership.id } }));
    const invite = await p.organizationInvite.create({
      data: { organizationId: organization.id, targetEmail: "bob@example.com", level: 8, tokenHash: "sha256$invite", createdById: user.id, expiresAt: at, acceptedAt: at },
    });
    await roundTrip("OrganizationInvite", invite, () => p.organizationInvite.findUnique({ where: { id: invite.id } }));
    const reset = await p.passwordReset.create({ data: { userId: user.id, tokenHash: "sha256$reset", expiresAt: at, usedAt: at } });
    await roundTrip("PasswordReset", reset, () => p.passwordReset.findUnique({ where: { id: reset.id } }));
    const key = await p.personalApiKey.create({
      data: { userId: user.id, label: "ci", secureValue: "sha256$key", maskValue: "phx_...abcd", scopes: ["dashboard:read", "*"], scopedProjects: [project.id], scopedOrganizations: [organization.id], lastUsedAt: at },
    });
    await roundTrip("PersonalApiKey", key, () => p.personalApiKey.findUnique({ where: { id: key.id } }));

    const dashboard = await p.dashboard.create({
      data: {
        projectId: project.id, name: "KPIs", description: "d", pinned: true, deleted: true, creationMode: "template", restrictionLevel: 37,
        filters: { date_from: "-7d" }, variables: { v: 1 }, breakdownColors: ["#fff"], dataColorThemeId: 3, createdById: user.id, lastAccessedAt: at, lastRefresh: at,
      },
    });
    await roundTrip("Dashboard", dashboard, () => p.dashboard.findUnique({ where: { id: dashboard.id } }));
    const insight = await p.insight.create({
      data: {
        shortId: "abc123", projectId: project.id, name: "Pageviews", derivedName: "Pageview count", description: "i", query: { kind: "TrendsQuery" },
        filters: { insight: "TRENDS" }, favorited: true, saved: true, deleted: false, createdById: user.id, lastModifiedById: user.id, lastModifiedAt: at, lastRefresh: at,
      },
    });
    await roundTrip("Insight", insight, () => p.insight.findUnique({ where: { id: insight.id } }));
    const text = await p.dashboardText.create({ data: { projectId: project.id, body: "# Notes", createdById: user.id, lastModifiedById: user.id, lastModifiedAt: at } });
    await roundTrip("DashboardText", text, () => p.dashboardText.findUnique({ where: { id: text.id } }));
    const tile = await p.dashboardTile.create({
      data: { dashboardId: dashboard.id, insightId: insight.id, layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } }, color: "blue", filtersOverrides: { date_from: "-1d" }, deleted: true, lastRefresh: at },
    });
    await roundTrip("DashboardTile", tile, () => p.dashboardTile.findUnique({ where: { id: tile.id } }));
    const collaborator = await p.dashboardCollaborator.create({ data: { dashboardId: dashboard.id, userId: user.id, level: 37 } });
    await roundTrip("DashboardCollaborator", collaborator, () => p.dashboardCollaborator.findUnique({ where: { id: collaborator.id } }));
    const action = await p.action.create({
      data: {
        projectId: project.id, name: "Signed up", description: "a", tags: ["growth"], postToSlack: true, slackMessageFormat: "[action.name]",
        steps: [{ event: "$pageview", url: "/signup" }], deleted: true, pinnedAt: at, creationContext: "events", createdById: user.id,
      },
    });
    await roundTrip("Action", action, () => p.action.findUnique({ where: { id: action.id } }));
    const hogFunction = await p.hogFunction.create({
      data: {
        id: "0190c000-0000-7000-8000-0000000000f1", projectId: project.id, name: "Hook", description: "d", enabled: true, templateId: "template-webhook", hog: "fetch()",
        iconUrl: "/i.svg", inputsSchema: [{ key: "url" }], inputs: { url: { value: "https://x.test" } }, filters: { events: [] }, masking: { ttl: 60 },
        consecutiveFailures: 2, circuitOpenUntil: at, createdById: user.id,
      },
    });
    await roundTrip("HogFunction", hogFunction, () => p.hogFunction.findUnique({ where: { id: hogFunction.id } }));
    const subscription = await p.subscription.create({
      data: {
        projectId: project.id, contentType: "dashboard", insightId: insight.id, dashboardId: dashboard.id, dashboardExportInsights: [insight.id, 7], title: "Weekly",
        targetType: "email", targetValue: "a@x.test,b@x.test", frequency: "monthly", interval: 2, count: 5, byweekday: ["monday", "friday"], bysetpos: -1,
        startDate: at, untilDate: at, nextDeliveryDate: at, inviteMessage: "Hi", enabled: false, deleted: true, lastDeliveredAt: at, lastDeliveryError: "x", createdById: user.id,
      },
    });
    await roundTrip("Subscription", subscription, () => p.subscription.findUnique({ where: { id: subscription.id } }));
    const outbox = await p.hogFunctionOutbox.create({
      data: { hogFunctionId: hogFunction.id, projectId: project.id, eventUuid: "0190c000-0000-7000-8000-0000000000e1", payload: { event: "x" }, attempts: 1, nextAttemptAt: at },
    });
    await roundTrip("HogFunctionOutbox", outbox, () => p.hogFunctionOutbox.findUnique({ where: { id: outbox.id } }));
    const batch = await p.hogFunctionOutboxBatch.create({
      data: { routes: [{ project_id: project.id, destinations: [hogFunction.id], events: ["0190c000-0000-7000-8000-0000000000e1"] }], createdAt: at },
    });
    await roundTrip("HogFunctionOutboxBatch", batch, () => p.hogFunctionOutboxBatch.findUnique({ where: { id: batch.id } }));
    const delivery = await p.hogFunctionDelivery.create({
      data: { hogFunctionId: hogFunction.id, projectId: project.id, eventUuid: "0190c000-0000-7000-8000-0000000000e1", attempt: 1, status: "failed", responseCode: 500, durationMs: 12, error: "x" },
    });
    await roundTrip("HogFunctionDelivery", delivery, () => p.hogFunctionDelivery.findUnique({ where: { id: delivery.id } }));
    const alert = await p.alert.create({
      data: {
        id: "0190c000-0000-7000-8000-0000000000a1", projectId: project.id, insightId: insight.id, name: "Spike", enabled: false,
        threshold: { configuration: { type: "absolute", bounds: { upper: 3 } } }, condition: { type: "absolute_value" }, config: { type: "TrendsAlertConfig", series_index: 1 },
        calculationInterval: "hourly", state: "Firing", subscribedUserIds: [user.id], webhookUrl: "https://hooks.test/a", skipWeekend: true,
        snoozedUntil: at, lastNotifiedAt: at, lastCheckedAt: at, nextCheckAt: at, createdById: user.id, createdAt: at,
      },
    });
    await roundTrip("Alert", alert, () => p.alert.findUnique({ where: { id: alert.id } }));
    const check = await p.alertCheck.create({
      data: { id: "0190c000-0000-7000-8000-0000000000a2", alertId: alert.id, projectId: project.id, createdAt: at, calculatedValue: 2.5, state: "Errored", error: { message: "x" }, targetsNotified: { users: ["a@b.test"] } },
    });
    await roundTrip("AlertCheck", check, () => p.alertCheck.findUnique({ where: { id: check.id } }));
    const batchExport = await p.batchExport.create({
      data: {
        id: "0190c000-0000-7000-8000-0000000000b1", projectId: project.id, name: "To S3", model: "events", destinationType: "S3", destinationConfig: { bucket_name: "b" },
        interval: "day", paused: true, deleted: false, startAt: at, endAt: at, scheduledUntil: at, lastPausedAt: at,
      },
    });
    await roundTrip("BatchExport", batchExport, () => p.batchExport.findUnique({ where: { id: batchExport.id } }));
    const exportBackfill = await p.batchExportBackfill.create({
      data: { id: "0190c000-0000-7000-8000-0000000000b2", batchExportId: batchExport.id, startAt: at, endAt: at, status: "Completed", totalExpectedRuns: 3, finishedAt: at },
    });
    await roundTrip("BatchExportBackfill", exportBackfill, () => p.batchExportBackfill.findUnique({ where: { id: exportBackfill.id } }));
    const run = await p.batchExportRun.create({
      data: {
        id: "0190c000-0000-7000-8000-0000000000b3", batchExportId: batchExport.id, backfillId: exportBackfill.id, status: "Completed", dataIntervalStart: at, dataIntervalEnd: at,
        recordsCompleted: 7, recordsTotalCount: 7, bytesExported: 12_345_678_901n, latestError: "x", cursor: { at: "2026-01-01T00:00:00.000Z", uuid: "u" }, attempts: 2, nextAttemptAt: at, finishedAt: at,
      },
    });
    await roundTrip("BatchExportRun", run, () => p.batchExportRun.findUnique({ where: { id: run.id } }));
    const sharing = await p.sharingConfiguration.create({
      data: { projectId: project.id, dashboardId: dashboard.id, enabled: true, accessToken: "tok", settings: { whitelabel: true }, createdById: user.id, expiresAt: at },
    });
    await roundTrip("SharingConfiguration", sharing, () => p.sharingConfiguration.findUnique({ where: { id: sharing.id } }));
    const tag = await p.tag.create({ data: { projectId: project.id, name: "growth" } });
    await roundTrip("Tag", tag, () => p.tag.findUnique({ where: { id: tag.id } }));

    const plugin = await p.plugin.create({
      data: { key: "schema-test-plugin", name: "Schema test plugin", description: "x", pluginType: "builtin", iconUrl: "/i.svg", configSchema: [{ key: "event" }], capabilities: { methods: ["processEvent"] }, organizationId: organization.id },
    });
    await roundTrip("Plugin", plugin, () => p.plugin.findUnique({ where: { id: plugin.id } }));
    const config = await p.pluginConfig.create({
      data: { projectId: project.id, pluginId: plugin.id, enabled: true, order: 3, config: { event: "$pageleave" }, name: "n", description: "d", deleted: false, error: "e" },
    });
    await roundTrip("PluginConfig", config, () => p.pluginConfig.findUnique({ where: { id: config.id } }));
    const metric = await p.pluginConfigMetric.create({ data: { pluginConfigId: config.id, hour: at, eventsSeen: 10, eventsDropped: 2, errors: 1, lastError: "boom" } });
    await roundTrip("PluginConfigMetric", metric, () => p.pluginConfigMetric.findUnique({ where: { id: metric.id } }));

    const person = await p.person.create({ data: { projectId: project.id, properties: { email: "x@y.z" }, isIdentified: true, version: 2, createdAt: at } });
    await roundTrip("Person", person, () => p.person.findUnique({ where: { id: person.id } }));
    const distinctId = await p.personDistinctId.create({ data: { projectId: project.id, personId: person.id, distinctId: "anon-1", version: 1 } });
    await roundTrip("PersonDistinctId", distinctId, () => p.personDistinctId.findUnique({ where: { id: distinctId.id } }));
    const event = await p.event.create({
      data: {
        uuid: "0190d1c2-7a3b-7c4d-8e5f-000000000001", projectId: project.id, event: "$pageview", distinctId: "anon-1", properties: { $current_url: "https://x.y/", n: 1.5, ok: true },
        timestamp: at, createdAt: at, personId: person.uuid, elementsChain: "a:nth-child=1", historicalMigration: true,
      },
    });
    await roundTrip("Event", event, () => p.event.findUnique({ where: { projectId_uuid: { projectId: project.id, uuid: event.uuid } } }));
    const session = await p.session.create({
      data: {
        projectId: project.id, sessionId: "0190d1c2-7a3b-7c4d-8e5f-00000000000a", distinctId: "anon-1", personId: person.uuid, startTimestamp: at, endTimestamp: at,
        lastViewTimestamp: at, pageviewCount: 2, screenCount: 1, autocaptureCount: 3, entryTimestamp: at, entryUrl: "https://x.y/a?utm_source=s", entryPathname: "/a",
        entryReferringDomain: "r.example", entryUtmSource: "s", entryUtmMedium: "m", entryUtmCampaign: "c", entryUtmTerm: "t", entryUtmContent: "co",
        exitTimestamp: at, exitUrl: "https://x.y/b", exitPathname: "/b",
      },
    });
    await roundTrip("Session", session, () => p.session.findUnique({ where: { projectId_sessionId: { projectId: project.id, sessionId: session.sessionId } } }));
    const delta = await p.sessionDelta.create({
      data: {
        projectId: project.id, sessionId: session.sessionId, distinctId: "anon-1", personId: person.uuid, startTimestamp: at, endTimestamp: at, lastViewTimestamp: at,
        pageviewCount: 1, screenCount: 0, autocaptureCount: 2, entryTimestamp: at, entry: { $current_url: "https://x.y/a" }, exitTimestamp: at, exit: { $pathname: "/b" },
      },
    });
    await roundTrip("SessionDelta", delta, () => p.sessionDelta.findUnique({ where: { id: delta.id } }));
    await p.sessionDelta.delete({ where: { id: delta.id } });
    const deletion = await p.personDeletion.create({
      data: { projectId: project.id, personUuid: person.uuid, distinctIds: ["anon-1", "x@y.z"], deletedEvents: 7, attempts: 2, lastError: "boom", createdAt: at, finishedAt: at },
    });
    await roundTrip("PersonDeletion", deletion, () => p.personDeletion.findUnique({ where: { id: deletion.id } }));
    const cohort = await p.cohort.create({
      data: {
        projectId: project.id, name: "Acme", description: "d", filters: { properties: { type: "AND", values: [] } }, isStatic: true, deleted: true, version: 3, computedVersion: 2,
        isCalculating: true, lastCalculation: at, errorsCalculating: 1, lastError: "boom", count: 12, createdById: user.id, createdAt: at,
      },
    });
    await roundTrip("Cohort", cohort, () => p.cohort.findUnique({ where: { id: cohort.id } }));
    const member = await p.cohortPerson.create({ data: { cohortId: cohort.id, personId: person.id, version: 2 } });
    await roundTrip("CohortPerson", member, () => p.cohortPerson.findUnique({ where: { cohortId_personId: { cohortId: cohort.id, personId: person.id } } }));
    const groupType = await p.groupTypeMapping.create({ data: { projectId: project.id, groupType: "company", groupTypeIndex: 0, nameSingular: "Company", namePlural: "Companies" } });
    await roundTrip("GroupTypeMapping", groupType, () => p.groupTypeMapping.findUnique({ where: { id: groupType.id } }));
    const group = await p.group.create({ data: { projectId: project.id, groupTypeIndex: 0, groupKey: "acme", groupProperties: { plan: "pro" }, version: 1, createdAt: at } });
    await roundTrip("Group", group, () => p.group.findUnique({ where: { id: group.id } }));

    const flag = await p.featureFlag.create({
      data: { projectId: project.id, key: "beta", name: "Beta", filters: { groups: [{ properties: [], rollout_percentage: 50 }] }, active: false, deleted: false, ensureExperienceContinuity: true, version: 4, createdById: user.id },
    });
    await roundTrip("FeatureFlag", flag, () => p.featureFlag.findUnique({ where: { id: flag.id } }));
    const override = await p.featureFlagHashKeyOverride.create({ data: { projectId: project.id, personId: person.id, featureFlagKey: "beta", hashKey: "anon-1" } });
    await roundTrip("FeatureFlagHashKeyOverride", override, () => p.featureFlagHashKeyOverride.findUnique({ where: { id: override.id } }));
    const holdout = await p.experimentHoldout.create({ data: { projectId: project.id, name: "Ten", filters: [{ properties: [], rollout_percentage: 10 }], createdById: user.id, createdAt: at } });
    await roundTrip("ExperimentHoldout", holdout, () => p.experimentHoldout.findUnique({ where: { id: holdout.id } }));
    const experiment = await p.experiment.create({
      data: { projectId: project.id, name: "Checkout", featureFlagId: flag.id, holdoutId: holdout.id, startDate: at, parameters: { feature_flag_variants: [{ key: "control", rollout_percentage: 50 }] }, metrics: [{ kind: "ExperimentMetric" }], createdById: user.id, createdAt: at },
    });
    await roundTrip("Experiment", experiment, () => p.experiment.findUnique({ where: { id: experiment.id } }));
    const savedMetric = await p.experimentSavedMetric.create({ data: { projectId: project.id, name: "Revenue", description: "Per person", query: { kind: "ExperimentMetric", metric_type: "mean" }, tags: ["checkout"], createdById: user.id, createdAt: at } });
    await roundTrip("ExperimentSavedMetric", savedMetric, () => p.experimentSavedMetric.findUnique({ where: { id: savedMetric.id } }));
    const link = await p.experimentToSavedMetric.create({ data: { experimentId: experiment.id, savedMetricId: savedMetric.id, metadata: { type: "secondary" }, createdAt: at } });
    await roundTrip("ExperimentToSavedMetric", link, () => p.experimentToSavedMetric.findUnique({ where: { id: link.id } }));
    const feature = await p.earlyAccessFeature.create({ data: { id: "0190c000-0000-7000-8000-0000000000ea", projectId: project.id, featureFlagId: flag.id, name: "Dark mode", stage: "beta", payload: { on: true }, createdById: user.id, createdAt: at } });
    await roundTrip("EarlyAccessFeature", feature, () => p.earlyAccessFeature.findUnique({ where: { id: feature.id } }));
    const survey = await p.survey.create({
      data: { id: "0190c000-0000-7000-8000-0000000000eb", projectId: project.id, name: "NPS", type: "popover", internalTargetingFlagId: flag.id, questions: [{ type: "rating", question: "How likely?", scale: 10 }], startDate: at, iterationStartDates: [], createdById: user.id, createdAt: at },
    });
    await roundTrip("Survey", survey, () => p.survey.findUnique({ where: { id: survey.id } }));
    const tagged = await p.taggedItem.create({ data: { tagId: tag.id, dashboardId: dashboard.id } });
    await roundTrip("TaggedItem", tagged, () => p.taggedItem.findUnique({ where: { id: tagged.id } }));
    const activity = await p.activityLog.create({
      data: { projectId: project.id, organizationId: organization.id, userId: user.id, scope: "Dashboard", itemId: String(dashboard.id), activity: "updated", detail: { changes: [{ field: "name" }] }, createdAt: at },
    });
    await roundTrip("ActivityLog", activity, () => p.activityLog.findUnique({ where: { id: activity.id } }));

    const eventDefinition = await p.eventDefinition.create({ data: { projectId: project.id, name: "$pageview", createdAt: at, lastSeenAt: at } });
    await roundTrip("EventDefinition", eventDefinition, () => p.eventDefinition.findUnique({ where: { id: eventDefinition.id } }));
    const propertyDefinition = await p.propertyDefinition.create({ data: { projectId: project.id, name: "plan", type: 2, propertyType: "String", createdAt: at, lastSeenAt: at } });
    await roundTrip("PropertyDefinition", propertyDefinition, () => p.propertyDefinition.findUnique({ where: { id: propertyDefinition.id } }));
    const eventProperty = await p.eventProperty.create({ data: { projectId: project.id, event: "$pageview", property: "$current_url" } });
    await roundTrip("EventProperty", eventProperty, () =>
      p.eventProperty.findUnique({ where: { projectId_event_property: { projectId: project.id, event: "$pageview", property: "$current_url" } } }),
    );
    const volume = await p.definitionVolume.create({ data: { projectId: project.id, kind: 0, name: "$pageview", day: new Date("2026-11-24T00:00:00Z"), count: 7 } });
    await roundTrip("DefinitionVolume", volume, () =>
      p.definitionVolume.findUnique({ where: { projectId_kind_name_day: { projectId: project.id, kind: 0, name: "$pageview", day: volume.day } } }),
    );
    const backfill = await p.definitionBackfill.create({ data: { projectId: project.id, doneAt: at } });
    await roundTrip("DefinitionBackfill", backfill, () => p.definitionBackfill.findUnique({ where: { projectId: project.id } }));

    const recordingSettings = await p.recordingSettings.create({ data: { projectId: project.id, settings: { session_recording_opt_in: true }, updatedAt: at } });
    await roundTrip("RecordingSettings", recordingSettings, () => p.recordingSettings.findUnique({ where: { projectId: project.id } }));
    const recording = await p.recording.create({
      data: { projectId: project.id, sessionId: "s-1", distinctId: "user-1", startTime: at, endTime: at, activeMs: 1500n, lastActiveMs: 1n, startUrl: "https://example.com/", snapshotLibrary: "web", sizeBytes: 10n, chunkCount: 1 },
    });
    await roundTrip("Recording", recording, () => p.recording.findUnique({ where: { projectId_sessionId: { projectId: project.id, sessionId: "s-1" } } }));
    const chunk = await p.recordingChunk.create({
      data: { projectId: project.id, sessionId: "s-1", windowId: "w-1", firstTimestamp: at, lastTimestamp: at, eventCount: 2, rawBytes: 20, data: new Uint8Array([0x1f, 0x8b, 0, 255]) },
    });
    await roundTrip("RecordingChunk", chunk, () => p.recordingChunk.findUnique({ where: { id: chunk.id } }));

    expect([...seen].sort()).toEqual(Object.values(Prisma.ModelName).sort());
  });

  it("keeps flag keys unique among live flags only, as PostHog does", async () => {
    const organization = await db.prisma.organization.create({ data: { name: "Flags" } });
    const project = await db.prisma.project.create({ data: { organizationId: organization.id, name: "P", apiToken: "phc_flags" } });
    const first = await db.prisma.featureFlag.create({ data: { projectId: project.id, key: "checkout" } });
    await expect(db.prisma.featureFlag.create({ data: { projectId: project.id, key: "checkout" } })).rejects.toThrow();
    await db.prisma.featureFlag.update({ where: { id: first.id }, data: { deleted: true } });
    await expect(db.prisma.featureFlag.create({ data: { projectId: project.id, key: "checkout" } })).resolves.toMatchObject({ key: "checkout" });
  });
});
