/**
 * The remote config payload route (`…/feature_flags/:key/remote_config`): the real
 * posthog-node SDK's `getRemoteConfigPayload` over HTTP against the route handler, and the
 * answers for unknown flags, other projects, tokens and secret keys, on a real database.
 * Scopes and the key's project rules are also walked by src/server/http/rest/scope-matrix.int.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { hashSecret } from "@/server/auth/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind } from "@/test-support/db";
import { restRoute } from "@/test-support/rest-routes";

const projectsRoute = restRoute("projects", "feature_flags/:id/remote_config");
const environmentsRoute = restRoute("environments", "feature_flags/:id/remote_config");

const SECRET = "phs_remoteConfigSecretKey0123456789abcdef";
const ROUTE = /^\/api\/(projects|environments)\/([^/]+)\/feature_flags\/([^/]+)\/remote_config\/?$/;

let db: Database;
let projectId = 0;
let otherProjectId = 0;
let token = "";
let personalKey = "";
let server: http.Server;
let host = "";

/** The route module's GET for a path, as Next would call it. */
function routeCall(request: Request): Promise<Response> {
  const match = ROUTE.exec(new URL(request.url).pathname);
  if (!match) return Promise.resolve(new Response(null, { status: 599 }));
  const route = match[1] === "projects" ? projectsRoute : environmentsRoute;
  return route.GET(request, { params: Promise.resolve({ project_id: decodeURIComponent(match[2]!), id: decodeURIComponent(match[3]!) }) });
}

async function get(path: string, key: string | null = personalKey) {
  const response = await routeCall(new Request(`http://burrow.test${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }));
  return { status: response.status, body: JSON.parse(await response.text()) as unknown };
}

async function flag(key: string, filters: object, extra: { project?: number; active?: boolean; deleted?: boolean } = {}) {
  return db.prisma.featureFlag.create({ data: { projectId: extra.project ?? projectId, key, filters, active: extra.active ?? true, deleted: extra.deleted ?? false } });
}

const always = { groups: [{ properties: [], rollout_percentage: 100 }] };

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "remote@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  token = owner.project_api_key;
  personalKey = owner.personal_api_key;
  await db.prisma.project.update({ where: { id: projectId }, data: { secretApiTokenHash: hashSecret(SECRET) } });
  otherProjectId = (await db.prisma.project.create({ data: { organizationId: owner.organization_id, name: "Other", apiToken: "phc_remote_other" } })).id;

  await flag("banner-config", { ...always, payloads: { true: '{"title":"Spring sale","ratio":0.25,"tags":["a","b"]}' } });
  await flag("plain-text", { ...always, payloads: { true: '"hello"' } });
  await flag("a-number", { ...always, payloads: { true: "42" } });
  await flag("no-payload", always);
  await flag("switched-off", { ...always, payloads: { true: '{"off":true}' } }, { active: false });
  await flag("gone", { ...always, payloads: { true: '{"gone":true}' } }, { deleted: true });
  await flag("variants", {
    ...always,
    multivariate: { variants: [{ key: "control", rollout_percentage: 50 }, { key: "test", rollout_percentage: 50 }] },
    payloads: { control: '{"v":"control"}', test: '{"v":"test"}' },
  });
  await flag("elsewhere", { ...always, payloads: { true: '{"project":"other"}' } }, { project: otherProjectId });
  await flag("2024", { ...always, payloads: { true: '"a key of digits"' } });

  server = http.createServer(async (req, res) => {
    const response = await routeCall(new Request(`http://127.0.0.1${req.url}`, { headers: req.headers as Record<string, string> }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await closeDb();
});

describe(`remote config payloads (${testDbKind})`, () => {
  it("posthog-node's getRemoteConfigPayload gets each flag's payload, with a personal key or the secret key", async () => {
    for (const key of [personalKey, SECRET]) {
      const client = new PostHog(token, { host, personalApiKey: key, enableLocalEvaluation: false, flushAt: 1_000_000, disableGeoip: true });
      try {
        expect(await client.getRemoteConfigPayload("banner-config")).toEqual({ title: "Spring sale", ratio: 0.25, tags: ["a", "b"] });
        expect(await client.getRemoteConfigPayload("plain-text")).toBe("hello");
        expect(await client.getRemoteConfigPayload("a-number")).toBe(42);
        expect(await client.getRemoteConfigPayload("no-payload")).toBeNull();
        expect(await client.getRemoteConfigPayload("variants")).toBeNull();
      } finally {
        await client.shutdown();
      }
    }
  });

  it("answers the payload JSON-encoded once more, as PostHog's remote_config action does", async () => {
    expect(await get(`/api/projects/@current/feature_flags/banner-config/remote_config?token=${token}`)).toEqual({
      status: 200,
      body: '{"title":"Spring sale","ratio":0.25,"tags":["a","b"]}',
    });
    expect(await get(`/api/projects/${projectId}/feature_flags/no-payload/remote_config`)).toEqual({ status: 200, body: null });
    // Multivariate payloads are per variant; PostHog answers only a "true" payload.
    expect(await get(`/api/projects/${projectId}/feature_flags/variants/remote_config`)).toEqual({ status: 200, body: null });
    // PostHog does not look at `active` here either.
    expect(await get(`/api/projects/${projectId}/feature_flags/switched-off/remote_config`)).toEqual({ status: 200, body: '{"off":true}' });
  });

  it("is also under /api/environments/, and takes a flag id as well as a key", async () => {
    const banner = await db.prisma.featureFlag.findFirstOrThrow({ where: { key: "banner-config" } });
    expect((await get(`/api/environments/@current/feature_flags/banner-config/remote_config?token=${token}`)).status).toBe(200);
    expect(await get(`/api/environments/${projectId}/feature_flags/${banner.id}/remote_config`)).toEqual({
      status: 200,
      body: '{"title":"Spring sale","ratio":0.25,"tags":["a","b"]}',
    });
    // Digits that are no flag's id are still a key.
    expect(await get(`/api/projects/${projectId}/feature_flags/2024/remote_config`)).toEqual({ status: 200, body: '"a key of digits"' });
  });

  it("answers 404 with PostHog's error body for an unknown, deleted or other project's flag", async () => {
    const notFound = { status: 404, body: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null } };
    for (const key of ["no-such-flag", "gone", "elsewhere", "bad%20key", "99999"]) {
      expect(await get(`/api/projects/@current/feature_flags/${key}/remote_config?token=${token}`), key).toEqual(notFound);
    }
    const elsewhere = await db.prisma.featureFlag.findFirstOrThrow({ where: { key: "elsewhere" } });
    expect(await get(`/api/projects/${projectId}/feature_flags/${elsewhere.id}/remote_config`)).toEqual(notFound);
  });

  it("reads @current as the token's project, so a key limited to that project works whatever the user's current project", async () => {
    expect(await get(`/api/projects/@current/feature_flags/elsewhere/remote_config?token=phc_remote_other`)).toEqual({ status: 200, body: '{"project":"other"}' });
    const owner = await db.prisma.user.findFirstOrThrow({ where: { email: "remote@example.com" } });
    const limited = (await createPersonalApiKey(db.prisma, owner.id, { scopes: ["feature_flag:read"], projectId: otherProjectId })).key;
    expect(await get(`/api/projects/@current/feature_flags/elsewhere/remote_config?token=phc_remote_other`, limited)).toEqual({ status: 200, body: '{"project":"other"}' });
    expect(await get(`/api/projects/@current/feature_flags/banner-config/remote_config?token=${token}`, limited)).toMatchObject({
      status: 403,
      body: { code: "permission_denied", detail: "API key does not have access to the requested project." },
    });
  });

  it("refuses a token of no project (401), a token of another project than the path's (400), and a secret key of another project (403)", async () => {
    expect(await get(`/api/projects/@current/feature_flags/banner-config/remote_config?token=phc_nobody`)).toEqual({
      status: 401,
      body: { type: "authentication_error", code: "authentication_failed", detail: "Project API key invalid. You can find your project API key in Burrow's project settings.", attr: null },
    });
    expect(await get(`/api/projects/${projectId}/feature_flags/banner-config/remote_config?token=phc_remote_other`)).toEqual({
      status: 400,
      body: { type: "validation_error", code: "invalid_input", detail: `The project API key is not project ${projectId}'s.`, attr: "token" },
    });
    expect(await get(`/api/projects/@current/feature_flags/elsewhere/remote_config?token=phc_remote_other`, SECRET)).toMatchObject({ status: 403, body: { code: "permission_denied" } });
    expect(await get(`/api/projects/${otherProjectId}/feature_flags/elsewhere/remote_config`, SECRET)).toMatchObject({ status: 403, body: { code: "permission_denied" } });
    expect(await get(`/api/projects/@current/feature_flags/banner-config/remote_config`, "phs_notTheSecret")).toMatchObject({ status: 401, body: { code: "authentication_failed" } });
  });
});
