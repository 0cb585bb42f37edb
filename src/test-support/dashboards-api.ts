/**
 * For the dashboards, collaborators and sharing API tests: one organization with an owner,
 * an admin and two members (each with an all-scopes personal key), a user of another
 * organization, and a way to call the real route handlers as any of them.
 */
import { expect } from "vitest";
import { bootstrap, createPersonalApiKey, createUser } from "@/server/accounts/service";
import type { Database } from "@/server/db/client";
import { restRoute } from "@/test-support/rest-routes";

const dashboards = restRoute("environments", "dashboards");

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface Person {
  id: number;
  uuid: string;
  email: string;
  key: string;
}

export interface World {
  projectId: number;
  otherProjectId: number;
  organizationId: string;
  /** Organization owner (membership 15), who bootstrapped it. */
  owner: Person;
  /** Organization admin (8): a project admin. */
  admin: Person;
  /** Plain members (1). */
  member: Person;
  viewer: Person;
  /** A user of another organization. */
  outsider: Person;
}

async function person(db: Database, email: string, organizationId: string, level: "member" | "admin"): Promise<Person> {
  const user = await createUser(db.prisma, { email, password: "pw12345678", organizationId, level });
  const { key } = await createPersonalApiKey(db.prisma, user.id, { scopes: ["*"] });
  return { ...user, key };
}

export async function createWorld(db: Database): Promise<World> {
  const boot = await bootstrap(db.prisma, { email: "owner@example.com", password: "pw12345678" });
  const other = await db.prisma.project.create({ data: { organizationId: boot.organization_id, name: "Second", apiToken: "phc_second_project" } });
  const outsiderBoot = await bootstrap(db.prisma, { email: "outsider@example.com", password: "pw12345678", organization: "Elsewhere" });
  return {
    projectId: boot.project_id,
    otherProjectId: other.id,
    organizationId: boot.organization_id,
    owner: { ...boot.user, key: boot.personal_api_key },
    admin: await person(db, "admin@example.com", boot.organization_id, "admin"),
    member: await person(db, "member@example.com", boot.organization_id, "member"),
    viewer: await person(db, "viewer@example.com", boot.organization_id, "member"),
    outsider: { ...outsiderBoot.user, key: outsiderBoot.personal_api_key },
  };
}

export interface Answer {
  status: number;
  /** Parsed JSON, or null for an empty body; read loosely by assertions. */
  body: any;
  text: string;
  headers: Headers;
}

/** Calls a route handler module's `method` as the holder of `key`, with a JSON body. */
export async function callRoute(
  module: Record<string, unknown>,
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE",
  path: string,
  params: Record<string, string>,
  key: string | null,
  body?: unknown,
): Promise<Answer> {
  const handler = module[method] as Handler | undefined;
  if (!handler) throw new Error(`no ${method} handler for ${path}`);
  const request = new Request(`http://burrow.test${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve(params) });
  const text = await response.text();
  let parsed: unknown = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** Creates a dashboard in the world's project through the REST API, as `who`; its id. */
export async function createDashboardAs(world: World, who: Person, body: Record<string, unknown>): Promise<number> {
  const answer = await callRoute(dashboards, "POST", `/api/environments/${world.projectId}/dashboards/`, { project_id: String(world.projectId) }, who.key, body);
  expect(answer.status, answer.text).toBe(201);
  return answer.body.id;
}

