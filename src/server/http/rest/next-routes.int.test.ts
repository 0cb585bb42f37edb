/**
 * The catch-all Next routes on a real database: the path Next hands over (`project_id` and
 * the segments after it) reaches the resource's handler with the params a per-resource route
 * file had, under both prefixes, with and without the trailing slash.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRouteHandlers } from "./next-routes";
import type { RestPrefix } from "./route";

describe(`catch-all management routes (${testDbKind})`, () => {
  let key: string;
  let projectId: number;
  beforeAll(async () => {
    const db = await createTestDatabase();
    registerDb(db);
    const boot = await bootstrap(db.prisma, { email: "table@example.com", password: "pw12345678" });
    projectId = boot.project_id;
    key = boot.personal_api_key;
  });
  afterAll(async () => {
    await closeDb();
  });

  async function call(prefix: RestPrefix, method: "GET" | "POST", project: string, path: string, body?: unknown) {
    const segments = path.split("/").filter((segment, i, all) => segment !== "" || i === all.length - 1);
    const response = await restRouteHandlers(prefix)[method](
      new Request(`http://localhost/api/${prefix}/${project}/${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
      { params: Promise.resolve({ project_id: project, path: path === "" ? undefined : segments }) },
    );
    return { status: response.status, body: await response.json() };
  }

  it("answers the project itself at the root, by id and as @current", async () => {
    const byId = await call("projects", "GET", String(projectId), "");
    expect(byId.status).toBe(200);
    expect(byId.body.id).toBe(projectId);
    expect(await call("environments", "GET", "@current", "")).toEqual(byId);
  });

  it("passes :id from the path: a dashboard made under one prefix reads the same under the other", async () => {
    const created = await call("projects", "POST", String(projectId), "dashboards/", { name: "Table" });
    expect(created.status).toBe(201);
    const viaEnvironments = await call("environments", "GET", String(projectId), `dashboards/${created.body.id}/`);
    const noSlash = await call("projects", "GET", "@current", `dashboards/${created.body.id}`);
    expect(viaEnvironments.status).toBe(200);
    expect(viaEnvironments.body.name).toBe("Table");
    expect(noSlash.body.id).toBe(created.body.id);
  });

  it("answers a not-found id with PostHog's 404 body, not Next's", async () => {
    expect(await call("environments", "GET", String(projectId), "insights/999999/")).toEqual({
      status: 404,
      body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null },
    });
  });
});
