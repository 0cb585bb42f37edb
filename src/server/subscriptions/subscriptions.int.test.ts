/**
 * Subscriptions end to end on a real database: the REST API (PostHog's fields, the computed
 * next delivery, the outbound check on webhook URLs, 4xx on bad input, 405 on DELETE, project
 * and scope checks), "send test now" to a real HTTP sink on loopback (a PNG per chart and a
 * link back, the schedule unmoved), and the due pass sending and moving the schedule.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap, createPersonalApiKey } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind, whileRequestConnectionsHeld } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { restRoute } from "@/test-support/rest-routes";
import { startSmtpSink } from "@/test-support/smtp-sink";
import { runDueSubscriptions } from "./service";
import { startSubscriptionDeliveries, stopSubscriptionDeliveries } from "./worker";

let db: Database;
let projectId: number;
let otherProjectId: number;
let apiKey: string;
let token: string;
let sink: http.Server;
let port = 0;
let insightId = 0;
let secondInsightId = 0;
let dashboardId = 0;

const list = restRoute("projects", "subscriptions");
const one = restRoute("projects", "subscriptions/:id");
const test = restRoute("projects", "subscriptions/:id/test-delivery");
const insights = restRoute("projects", "insights");
const dashboards = restRoute("projects", "dashboards");

interface Received {
  path: string;
  body: string;
}
const received: Received[] = [];
const answers = new Map<string, number>();

type Handler = (request: Request, route: { params: Promise<unknown> }) => Promise<Response>;
async function call(handler: Handler, method: string, path: string, params: Record<string, string>, body?: unknown, options: { key?: string; project?: number } = {}) {
  const project = options.project ?? projectId;
  const response = await handler(
    new Request(`http://localhost/api/projects/${project}/${path}`, {
      method,
      headers: { authorization: `Bearer ${options.key ?? apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ project_id: String(project), ...params }) },
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const create = (body: unknown, options?: { key?: string; project?: number }) => call(list.POST, "POST", "subscriptions/", {}, body, options);
const patch = (id: number, body: unknown) => call(one.PATCH, "PATCH", `subscriptions/${id}/`, { id: String(id) }, body);
const sendTest = (id: number) => call(test.POST, "POST", `subscriptions/${id}/test-delivery/`, { id: String(id) });
const hook = (path: string) => `http://127.0.0.1:${port}${path}`;
const daily = (extra: Record<string, unknown> = {}) => ({
  insight: insightId,
  target_type: "webhook",
  target_value: hook("/hook"),
  frequency: "daily",
  start_date: "2026-01-01T09:00:00Z",
  title: "Daily views",
  ...extra,
});

const PNG_SIGNATURE = "89504e470d0a1a0a";
const pngOf = (dataUrl: string) => Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ""), "base64");

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "subscriptions@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
  const other = await bootstrap(db.prisma, { email: "elsewhere@example.com", password: "pw12345678", organization: "Elsewhere" });
  otherProjectId = other.project_id;
  sink = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, body: Buffer.concat(chunks).toString("utf8") });
      const status = answers.get(path) ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status >= 300 ? "broken" : "ok");
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  port = (sink.address() as AddressInfo).port;
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
  process.env.SITE_URL = "https://burrow.example.com";
  const now = Date.now();
  await sendBatch(token, [
    ...Array.from({ length: 12 }, (_, i) => ({ event: "$pageview", distinct_id: `u${i % 4}`, timestamp: new Date(now - (i % 5) * 86_400_000).toISOString(), properties: {} })),
    { event: "signed_up", distinct_id: "u1", properties: {} },
  ]);
  const trends = (event: string, display?: string) => ({
    kind: "InsightVizNode",
    source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event, math: "total" }], interval: "day", dateRange: { date_from: "-7d" }, ...(display ? { trendsFilter: { display } } : {}) },
  });
  const dashboard = await call(dashboards.POST, "POST", "dashboards/", {}, { name: "Weekly" });
  dashboardId = dashboard.body.id;
  const first = await call(insights.POST, "POST", "insights/", {}, { name: "Pageviews", query: trends("$pageview"), saved: true, dashboards: [dashboardId] });
  expect(first.status, JSON.stringify(first.body)).toBe(201);
  insightId = first.body.id;
  const second = await call(insights.POST, "POST", "insights/", {}, { name: "Sign-ups", query: trends("signed_up", "BoldNumber"), saved: true, dashboards: [dashboardId] });
  expect(second.status, JSON.stringify(second.body)).toBe(201);
  secondInsightId = second.body.id;
});

afterAll(async () => {
  sink.closeAllConnections();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  delete process.env.SITE_URL;
  await closeDb();
});

describe("subscriptions API", () => {
  it("creates an insight subscription with PostHog's fields and a computed next delivery", async () => {
    const created = await create(daily({ frequency: "weekly", byweekday: ["monday"], interval: 2 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      content_type: "insight",
      insight: insightId,
      dashboard: null,
      resource_name: "Pageviews",
      target_type: "webhook",
      frequency: "weekly",
      interval: 2,
      byweekday: ["monday"],
      bysetpos: null,
      summary: "sent every 2 weeks",
      deleted: false,
      enabled: true,
      integration_id: null,
      created_by: { email: "subscriptions@example.com" },
    });
    expect(created.body.insight_short_id).toMatch(/^[A-Za-z0-9]{8}$/);
    const next = new Date(created.body.next_delivery_date);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getUTCDay()).toBe(1); // a Monday
    expect(next.toISOString().slice(11)).toBe("09:00:00.000Z");
    const fetched = await call(one.GET, "GET", `subscriptions/${created.body.id}/`, { id: String(created.body.id) });
    expect(fetched.body).toEqual(created.body);
    const listed = await call(list.GET, "GET", `subscriptions/?insight=${insightId}`, {});
    expect(listed.body.results.map((s: { id: number }) => s.id)).toContain(created.body.id);
  });

  it("refuses bad input with PostHog's 400s, never a 500", async () => {
    const cases: [unknown, string][] = [
      [daily({ frequency: "hourly" }), "frequency"],
      [daily({ target_type: "slack" }), "target_type"],
      [daily({ target_type: "email", target_value: "not-an-address" }), "target_value"],
      [daily({ target_value: "ftp://example.com/" }), "target_value"],
      [daily({ interval: 0 }), "interval"],
      [daily({ bysetpos: 7, byweekday: ["monday"] }), "bysetpos"],
      [daily({ byweekday: ["funday"] }), "byweekday__0"],
      [daily({ start_date: "yesterday" }), "start_date"],
      [daily({ insight: 999_999 }), "insight"],
      [daily({ insight: undefined }), "insight"],
      [daily({ insight: "abc" }), "insight"],
      [daily({ until_date: "2026-01-02T00:00:00Z" }), "start_date"],
      [daily({ insight: undefined, dashboard: dashboardId }), "dashboard_export_insights"],
      [daily({ insight: undefined, dashboard: dashboardId, dashboard_export_insights: [1, 2, 3, 4, 5, 6, 7] }), "dashboard_export_insights"],
      [daily({ title: "x".repeat(101) }), "title"],
    ];
    for (const [body, attr] of cases) {
      const answer = await create(body);
      expect(answer.status, `${attr}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.type).toBe("validation_error");
      expect(answer.body.attr, JSON.stringify(answer.body)).toBe(attr);
    }
  });

  it("refuses a webhook URL reaching loopback or private addresses unless allowlisted", async () => {
    delete process.env.BURROW_OUTBOUND_ALLOWLIST;
    for (const url of [hook("/hook"), "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/latest", "http://localhost:9/"]) {
      const answer = await create(daily({ target_value: url }));
      expect(answer.status, url).toBe(400);
      expect(answer.body.attr).toBe("target_value");
      expect(answer.body.detail).toMatch(/BURROW_OUTBOUND_ALLOWLIST|private/);
    }
    process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
    expect((await create(daily())).status).toBe(201);
  });

  it("keeps to its project and its scope", async () => {
    const elsewhere = await create(daily(), { project: otherProjectId });
    expect(elsewhere.status).toBe(403);
    const readOnly = (await createPersonalApiKey(db.prisma, (await db.prisma.user.findFirstOrThrow({ where: { email: "subscriptions@example.com" } })).id, { scopes: ["subscription:read"] })).key;
    expect((await create(daily(), { key: readOnly })).status).toBe(403);
    expect((await call(list.GET, "GET", "subscriptions/", {}, undefined, { key: readOnly })).status).toBe(200);
    const insightOnly = (await createPersonalApiKey(db.prisma, (await db.prisma.user.findFirstOrThrow({ where: { email: "subscriptions@example.com" } })).id, { scopes: ["insight:write"] })).key;
    expect((await call(list.GET, "GET", "subscriptions/", {}, undefined, { key: insightOnly })).status).toBe(403);
    const mine = await create(daily());
    const other = await call(one.GET, "GET", `subscriptions/${mine.body.id}/`, { id: String(mine.body.id) }, undefined, { project: otherProjectId, key: (await bootstrapKeyOf("elsewhere@example.com"))! });
    expect(other.status).toBe(404);
    expect((await call(one.GET, "GET", "subscriptions/99999999999/", { id: "99999999999" })).status).toBe(404);
  });

  it("soft-deletes with PATCH (DELETE is 405), and a changed schedule moves the next delivery", async () => {
    const created = await create(daily());
    const id = created.body.id as number;
    expect((await call(one.DELETE, "DELETE", `subscriptions/${id}/`, { id: String(id) })).status).toBe(405);
    const renamed = await patch(id, { title: "Renamed", target_value: hook("/renamed") });
    expect(renamed.body.next_delivery_date).toBe(created.body.next_delivery_date);
    const moved = await patch(id, { frequency: "monthly", bysetpos: -1, byweekday: ["friday"] });
    expect(moved.status).toBe(200);
    expect(moved.body.summary).toBe("sent every month on the last Friday");
    const date = new Date(moved.body.next_delivery_date);
    expect(date.getUTCDay()).toBe(5);
    expect(new Date(date.getTime() + 7 * 86_400_000).getUTCMonth()).not.toBe(date.getUTCMonth());
    expect((await patch(id, { content_type: "dashboard" })).status).toBe(400);
    const deleted = await patch(id, { deleted: true });
    expect(deleted.body.deleted).toBe(true);
    const live = await call(list.GET, "GET", "subscriptions/", {});
    expect(live.body.results.map((s: { id: number }) => s.id)).not.toContain(id);
    const gone = await call(list.GET, "GET", "subscriptions/?deleted=true", {});
    expect(gone.body.results.map((s: { id: number }) => s.id)).toContain(id);
    expect((await sendTest(id)).status).toBe(404);
  });
});

describe("delivery", () => {
  it("sends a test now to a real webhook: a PNG of the chart and a link back; the schedule does not move", async () => {
    const created = await create(daily({ target_value: hook("/test-now") }));
    const id = created.body.id as number;
    const answer = await sendTest(id);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(answer.body).toEqual({ delivered: true, error: null, images: 1, target_type: "webhook" });
    const hit = received.filter((r) => r.path === "/test-now");
    expect(hit).toHaveLength(1);
    const payload = JSON.parse(hit[0]!.body);
    expect(payload).toMatchObject({
      event: "subscription_test",
      title: "Burrow Insight report - Pageviews",
      subscription: { id, title: "Daily views", summary: "sent every day" },
      resource: { type: "insight", id: insightId, name: "Pageviews", url: `https://burrow.example.com/insights/${created.body.insight_short_id}` },
    });
    expect(payload.insights).toHaveLength(1);
    const png = pngOf(payload.insights[0].image);
    expect(png.subarray(0, 8).toString("hex")).toBe(PNG_SIGNATURE);
    expect(png.readUInt32BE(16)).toBe(1200);
    // Kept for a look: the chart of real events as the receiver got it.
    fs.mkdirSync("test-results", { recursive: true });
    fs.writeFileSync("test-results/subscription-delivery.png", png);
    const after = await call(one.GET, "GET", `subscriptions/${id}/`, { id: String(id) });
    expect(after.body.next_delivery_date).toBe(created.body.next_delivery_date);
    expect(after.body.last_delivered_at).not.toBeNull();
    expect(after.body.last_delivery_error).toBeNull();
  });

  it("sends a dashboard's chosen insights in layout order, and reports a failing receiver", async () => {
    const created = await create(daily({ insight: undefined, dashboard: dashboardId, dashboard_export_insights: [secondInsightId, insightId], target_value: hook("/dashboard") }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ content_type: "dashboard", resource_name: "Weekly", dashboard_export_insights: [secondInsightId, insightId] });
    const answer = await sendTest(created.body.id);
    expect(answer.body).toMatchObject({ delivered: true, images: 2 });
    const payload = JSON.parse(received.filter((r) => r.path === "/dashboard").at(-1)!.body);
    expect(payload.resource).toMatchObject({ type: "dashboard", id: dashboardId, url: `https://burrow.example.com/dashboards/${dashboardId}` });
    expect(payload.insights.map((i: { name: string }) => i.name)).toEqual(["Pageviews", "Sign-ups"]);
    expect(payload.insights[1].url).toContain(`?dashboard=${dashboardId}`);
    answers.set("/dashboard", 500);
    const failed = await sendTest(created.body.id);
    expect(failed.body).toMatchObject({ delivered: false, error: "The webhook answered HTTP 500." });
    expect((await call(one.GET, "GET", `subscriptions/${created.body.id}/`, { id: String(created.body.id) })).body.last_delivery_error).toBe("The webhook answered HTTP 500.");
    answers.delete("/dashboard");
  });

  it("refuses at send time an address allowlisted no more", async () => {
    const created = await create(daily({ target_value: hook("/revoked") }));
    delete process.env.BURROW_OUTBOUND_ALLOWLIST;
    try {
      const answer = await sendTest(created.body.id);
      expect(answer.body.delivered).toBe(false);
      expect(answer.body.error).toMatch(/BURROW_OUTBOUND_ALLOWLIST/);
      expect(received.some((r) => r.path === "/revoked")).toBe(false);
    } finally {
      process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
    }
  });

  it("the due pass sends each due subscription once and moves it to its next date", async () => {
    // Nothing else is due: the ones above start in the future.
    const created = await create(daily({ target_value: hook("/due") }));
    const id = created.body.id as number;
    const due = new Date(Date.now() - 60_000);
    await db.prisma.subscription.update({ where: { id }, data: { nextDeliveryDate: due } });
    const sent = await runDueSubscriptions(db);
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(received.filter((r) => r.path === "/due")).toHaveLength(1);
    expect(JSON.parse(received.find((r) => r.path === "/due")!.body).event).toBe("subscription_delivery");
    const after = (await call(one.GET, "GET", `subscriptions/${id}/`, { id: String(id) })).body;
    const next = new Date(after.next_delivery_date);
    expect(next.getTime()).toBeGreaterThan(Date.now() + 15 * 60_000 - 1000);
    expect(next.getTime()).toBeLessThanOrEqual(Date.now() + 86_400_000 + 15 * 60_000);
    expect(next.toISOString().slice(11)).toBe("09:00:00.000Z");
    // A second pass finds nothing due: not sent again.
    await runDueSubscriptions(db);
    expect(received.filter((r) => r.path === "/due")).toHaveLength(1);
    // Disabled ones are not sent.
    await patch(id, { enabled: false });
    await db.prisma.subscription.update({ where: { id }, data: { nextDeliveryDate: due } });
    await runDueSubscriptions(db);
    expect(received.filter((r) => r.path === "/due")).toHaveLength(1);
    expect((await sendTest(id)).status).toBe(400);
  });

  it.skipIf(testDbKind === "pglite")("the due pass runs on the workers' connections: it sends while requests hold every connection of theirs", async () => {
    const created = await create(daily({ target_value: hook("/beside-busy-requests") }));
    const id = created.body.id as number;
    await db.prisma.subscription.update({ where: { id }, data: { nextDeliveryDate: new Date(Date.now() - 60_000) } });
    expect(await whileRequestConnectionsHeld(db, () => runDueSubscriptions(db))).toBeGreaterThanOrEqual(1);
    // Delivered with its chart, not an error of a connection waited for.
    const delivered = received.filter((r) => r.path === "/beside-busy-requests");
    expect(delivered).toHaveLength(1);
    expect(JSON.parse(delivered[0]!.body).event).toBe("subscription_delivery");
    const after = (await call(one.GET, "GET", `subscriptions/${id}/`, { id: String(id) })).body;
    expect(new Date(after.next_delivery_date).getTime()).toBeGreaterThan(Date.now());
  });
});

describe("the background pass", () => {
  it("runs on the periodic-pass kernel and sends what falls due", async () => {
    const created = await create(daily({ target_value: hook("/kernel") }));
    startSubscriptionDeliveries(db, { intervalMs: 50 });
    try {
      await db.prisma.subscription.update({ where: { id: created.body.id }, data: { nextDeliveryDate: new Date(Date.now() - 1000) } });
      const deadline = Date.now() + 15_000;
      while (!received.some((r) => r.path === "/kernel") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await stopSubscriptionDeliveries();
    }
    expect(received.filter((r) => r.path === "/kernel")).toHaveLength(1);
    const after = (await call(one.GET, "GET", `subscriptions/${created.body.id}/`, { id: String(created.body.id) })).body;
    expect(new Date(after.next_delivery_date).getTime()).toBeGreaterThan(Date.now());
  });
});

describe("e-mail delivery", () => {
  it("says so when e-mail is not set up", async () => {
    delete process.env.SMTP_URL;
    delete process.env.EMAIL_FROM;
    const created = await create(daily({ target_type: "email", target_value: "ada@example.com" }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const answer = await sendTest(created.body.id);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ delivered: false, target_type: "email" });
    expect(answer.body.error).toMatch(/SMTP_URL/);
  });

  it("e-mails each chart as an inline PNG with links back, to every address, through a real SMTP server", async () => {
    const smtp = await startSmtpSink();
    process.env.SMTP_URL = smtp.url;
    process.env.EMAIL_FROM = "Burrow <burrow@example.com>";
    try {
      const created = await create(
        daily({ insight: undefined, dashboard: dashboardId, dashboard_export_insights: [insightId, secondInsightId], target_type: "email", target_value: "ada@example.com, bob@example.com", invite_message: "Our weekly numbers" }),
      );
      expect(created.body.target_value).toBe("ada@example.com,bob@example.com");
      const answer = await sendTest(created.body.id);
      expect(answer.body, JSON.stringify(answer.body)).toEqual({ delivered: true, error: null, images: 2, target_type: "email" });
      const [mail] = await smtp.waitFor(1);
      expect(mail!.subject).toBe("Burrow Dashboard report - Weekly");
      expect((Array.isArray(mail!.to) ? mail!.to : [mail!.to]).flatMap((to) => to!.value.map((v) => v.address))).toEqual(["ada@example.com", "bob@example.com"]);
      const pngs = mail!.attachments.filter((a) => a.contentType === "image/png");
      expect(pngs).toHaveLength(2);
      for (const png of pngs) {
        expect(png.content.subarray(0, 8).toString("hex")).toBe(PNG_SIGNATURE);
        expect(mail!.html).toContain(`cid:${png.cid}`);
      }
      expect(mail!.html).toContain(`https://burrow.example.com/dashboards/${dashboardId}`);
      expect(mail!.html).toContain("Our weekly numbers");
      expect(mail!.text).toContain(`Open in Burrow: https://burrow.example.com/dashboards/${dashboardId}`);
      // A refusing mail server is a failed delivery, kept on the subscription.
      smtp.refuse(true);
      const refused = await sendTest(created.body.id);
      expect(refused.body.delivered).toBe(false);
      expect(refused.body.error).toMatch(/did not take the message/);
    } finally {
      delete process.env.SMTP_URL;
      delete process.env.EMAIL_FROM;
      await smtp.close();
    }
  });
});

async function bootstrapKeyOf(email: string): Promise<string | null> {
  const user = await db.prisma.user.findFirstOrThrow({ where: { email } });
  return (await createPersonalApiKey(db.prisma, user.id, { scopes: ["*"] })).key;
}
