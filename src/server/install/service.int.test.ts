/** install.sendTestEvent: a $pageview through the capture pipeline, stored like an SDK's. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { createCaller } from "@/server/http/trpc/root";
import { TEST_EVENT_LIB } from "./contract";

let db: Database;
let projectId: number;
let api: ReturnType<typeof createCaller>;
let userUuid: string;

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "first-run@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: "first-run@example.com" } });
  userUuid = user.uuid;
  api = createCaller({ db, headers: new Headers(), user: { id: user.id, uuid: user.uuid, email: user.email, firstName: "", currentProjectId: projectId } });
});

afterAll(async () => {
  await closeDb();
});

describe(`the test event (${testDbKind})`, () => {
  it("is stored as a $pageview of the page's origin, with a person and a session, and counts as a live visitor", async () => {
    expect((await api.events.list({ projectId, limit: 1 })).results).toHaveLength(0);
    const sent = await api.install.sendTestEvent({ projectId, origin: "http://burrow.example:8000" });
    expect(sent).toMatchObject({ event: "$pageview", distinctId: `burrow-test-${userUuid}` });

    const { results } = await api.events.list({ projectId, limit: 10 });
    expect(results).toHaveLength(1);
    const stored = results[0]!;
    expect(stored).toMatchObject({ id: sent.uuid, event: "$pageview", distinct_id: sent.distinctId, timestamp: sent.timestamp });
    expect(stored.properties).toMatchObject({ $current_url: "http://burrow.example:8000/", $host: "burrow.example:8000", $pathname: "/", $lib: TEST_EVENT_LIB });
    expect(String(stored.properties.$session_id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(stored.person).not.toBeNull();
    expect((await api.web.liveVisitors({ projectId })).visitors).toBe(1);
  });

  it("sent twice by the same user is still one visitor", async () => {
    await api.install.sendTestEvent({ projectId, origin: "https://burrow.example" });
    expect((await api.events.list({ projectId, limit: 10 })).results).toHaveLength(2);
    expect((await api.web.liveVisitors({ projectId })).visitors).toBe(1);
  });

  it("refuses what is not an origin, and other projects", async () => {
    for (const origin of ["burrow.example", "http://burrow.example/path", "javascript:alert(1)", "http://user@evil.example", `http://${"a".repeat(400)}`]) {
      await expect(api.install.sendTestEvent({ projectId, origin })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
    await expect(api.install.sendTestEvent({ projectId: projectId + 1000, origin: "https://burrow.example" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await api.events.list({ projectId, limit: 10 })).results).toHaveLength(2);
  });
});
