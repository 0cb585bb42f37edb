/** transformations.* over tRPC: the pipeline page's calls, on the same services as REST. */
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/http/trpc/root";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";

let db: Database;
let projectId: number;
let api: ReturnType<typeof createCaller>;
let outsider: ReturnType<typeof createCaller>;
const plugin = {} as Record<string, number>;

async function callerFor(email: string, currentProjectId: number) {
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email } });
  return createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId } });
}

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "pipeline@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  api = await callerFor("pipeline@example.com", projectId);
  const other = await bootstrap(db.prisma, { email: "stranger@example.com", password: "pw12345678", organization: "Elsewhere" });
  outsider = await callerFor("stranger@example.com", other.project_id);
  for (const row of await db.prisma.plugin.findMany()) plugin[row.key] = row.id;
});

afterAll(async () => {
  await closeDb();
});

describe(`transformations router (${testDbKind})`, () => {
  it("lists plugins with their forms", async () => {
    const plugins = await api.transformations.plugins({ projectId });
    expect(plugins.map((p) => p.key)).toHaveLength(9);
    expect(plugins.find((p) => p.key === "rename")!.config_schema).toContainEqual(expect.objectContaining({ key: "event_case", type: "choice" }));
  });

  it("creates, updates, rearranges and deletes; testChain runs the enabled chain in order", async () => {
    const parser = await api.transformations.create({ projectId, plugin: plugin["url-parser"]!, enabled: true });
    const flatten = await api.transformations.create({ projectId, plugin: plugin.flatten!, enabled: false });
    expect((await api.transformations.list({ projectId })).map((c) => c.id)).toEqual([parser.id, flatten.id]);

    const sample = { event: "$pageview", properties: { $current_url: "https://example.com/?q=1" } };
    let run = await api.transformations.testChain({ projectId, event: sample });
    expect(run.steps.map((s) => s.config_id)).toEqual([parser.id]);
    expect(run.after!.properties).toMatchObject({ url_params: { q: "1" } });
    expect(run.after!.properties).not.toHaveProperty("url_params__q");

    await api.transformations.update({ projectId, id: flatten.id, changes: { enabled: true } });
    run = await api.transformations.testChain({ projectId, event: sample });
    expect(run.before.properties).toEqual(sample.properties);
    expect(run.steps.map((s) => s.name)).toEqual(["URL parser", "Flatten properties"]);
    expect(run.after!.properties).toMatchObject({ url_params__q: "1" });

    const reordered = await api.transformations.rearrange({ projectId, orders: { [flatten.id]: 0, [parser.id]: 1 } });
    expect(reordered.map((c) => c.id)).toEqual([flatten.id, parser.id]);
    run = await api.transformations.testChain({ projectId, event: sample });
    expect(run.after!.properties).not.toHaveProperty("url_params__q");

    const dry = await api.transformations.dryRun({ projectId, id: parser.id, job: { type: "dry_run", payload: { events: [sample] } } });
    expect(dry.results[0]!.after!.properties).toMatchObject({ url_host: "example.com" });

    const activity = await api.transformations.activity({ projectId, id: flatten.id });
    expect(activity.results.map((a) => a.activity)).toEqual(["order_changed", "updated", "created"]);

    await api.transformations.delete({ projectId, id: parser.id });
    expect((await api.transformations.list({ projectId })).map((c) => c.id)).toEqual([flatten.id]);
  });

  it("reports a drop in the chain as a null result", async () => {
    const drop = await api.transformations.create({ projectId, plugin: plugin["drop-events"]!, enabled: true, order: 0, config: { events: ["spam"] } });
    const run = await api.transformations.testChain({ projectId, event: { event: "spam" } });
    expect(run.steps[0]).toMatchObject({ config_id: drop.id, after: null, error: null });
    expect(run.after).toBeNull();
    await api.transformations.delete({ projectId, id: drop.id });
  });

  it("answers bad input as BAD_REQUEST naming the field, other projects as FORBIDDEN", async () => {
    const failure = await api.transformations.create({ projectId, plugin: plugin.flatten!, config: { separator: "" } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect((failure as TRPCError).code).toBe("BAD_REQUEST");
    expect((failure as TRPCError).message).toBe("separator: the separator must not be empty.");
    for (const value of ["(a)\\1", "(?=x)"]) {
      const redos = await api.transformations
        .create({ projectId, plugin: plugin["drop-events"]!, config: { properties: [{ key: "name", operator: "regex", value }] } })
        .catch((error: unknown) => error);
      expect(redos, value).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("Invalid regular expression"), cause: { attr: expect.stringMatching(/^config__properties/) } });
    }
    const drop = await api.transformations.create({ projectId, plugin: plugin["drop-events"]!, config: { events: ["spam"] } });
    const redos = await api.transformations
      .update({ projectId, id: drop.id, changes: { config: { properties: [{ key: "name", operator: "regex", value: "(a)\\1" }] } } })
      .catch((error: unknown) => error);
    expect(redos).toMatchObject({ code: "BAD_REQUEST", message: expect.stringContaining("Invalid regular expression"), cause: { attr: expect.stringMatching(/^config__properties/) } });
    await api.transformations.delete({ projectId, id: drop.id });
    const missing = await api.transformations.update({ projectId, id: 999999, changes: { enabled: true } }).catch((error: unknown) => error);
    expect((missing as TRPCError).code).toBe("NOT_FOUND");
    const forbidden = await outsider.transformations.list({ projectId }).catch((error: unknown) => error);
    expect((forbidden as TRPCError).code).toBe("FORBIDDEN");
  });
});
