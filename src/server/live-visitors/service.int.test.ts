/** web.liveVisitors: unique visitors with a $pageview in the last 30 minutes, by host. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { createCaller } from "@/server/http/trpc/root";
import { sendBatch } from "@/test-support/ingestion";
import { countLiveVisitors } from "./service";

let db: Database;
let projectId: number;
let api: ReturnType<typeof createCaller>;
const NOW = Date.now();
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "live@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "live@example.com" } });
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
  const pageview = (distinctId: string, minutesAgo: number, host: string) => ({
    uuid: randomUUID(),
    event: "$pageview",
    distinct_id: distinctId,
    timestamp: ago(minutesAgo),
    properties: { $host: host, $pathname: "/" },
  });
  await sendBatch(owner.project_api_key, [
    pageview("alice", 2, "shop.example"),
    pageview("alice", 5, "shop.example"),
    pageview("bob", 25, "docs.example"),
    // Too old, and not a pageview: neither counts.
    pageview("carol", 45, "shop.example"),
    { uuid: randomUUID(), event: "clicked", distinct_id: "dave", timestamp: ago(1), properties: { $host: "shop.example" } },
  ]);
});

afterAll(async () => {
  await closeDb();
});

describe(`live visitors (${testDbKind})`, () => {
  it("counts each person with a pageview in the last 30 minutes once", async () => {
    const live = await api.web.liveVisitors({ projectId });
    expect(live).toMatchObject({ visitors: 2, windowMinutes: 30 });
    expect(Date.parse(live.at)).toBeGreaterThanOrEqual(NOW);
  });

  it("keeps to one host when asked", async () => {
    expect((await api.web.liveVisitors({ projectId, host: "shop.example" })).visitors).toBe(1);
    expect((await api.web.liveVisitors({ projectId, host: "docs.example" })).visitors).toBe(1);
    expect((await api.web.liveVisitors({ projectId, host: "nowhere.example" })).visitors).toBe(0);
  });

  it("moves with the clock: half an hour later nobody is live", async () => {
    const ctx = { db, project: { id: projectId, organizationId: "", name: "", membershipLevel: 15 }, actor: { id: 0, uuid: "", email: "", currentProjectId: null }, scopes: ["*"] };
    expect((await countLiveVisitors(ctx, {}, new Date(NOW + 31 * 60_000))).visitors).toBe(0);
    expect((await countLiveVisitors(ctx, {}, new Date(NOW - 20 * 60_000))).visitors).toBe(2);
  });

  it("refuses an empty host and other projects", async () => {
    await expect(api.web.liveVisitors({ projectId, host: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(api.web.liveVisitors({ projectId: projectId + 1000 })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
