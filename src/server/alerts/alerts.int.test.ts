/**
 * Insight alerts end to end on a real database: events sent through the real /batch/
 * handler, trends insights and alerts made through the REST routes, each kind of threshold
 * firing and resolving on those events ("check now"), the scheduled pass advancing
 * next_check_at, snoozing, errors, webhook notices delivered to a real HTTP sink on loopback
 * (and refused for 127.0.0.1 unless allowlisted, at save and at connect time), and bad input
 * answered 4xx. Scopes and projects of every alert route: src/server/http/rest/scope-matrix.int.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bootstrap } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testDbKind, testStoresName, whileRequestConnectionsHeld } from "@/test-support/db";
import { sendBatch } from "@/test-support/ingestion";
import { restRoute } from "@/test-support/rest-routes";
import { startSmtpSink } from "@/test-support/smtp-sink";
import { checkAlert, checkDueAlerts } from "./service";

let db: Database;
let projectId: number;
let otherProjectId: number;
let apiKey: string;
let userId: number;
let sink: http.Server;
let port = 0;
const received: { path: string; body: Record<string, unknown> }[] = [];

const alerts = restRoute("projects", "alerts");
const alert = restRoute("projects", "alerts/:id");
const checkNow = restRoute("projects", "alerts/:id/check_now");
const insights = restRoute("projects", "insights");
const insight = restRoute("projects", "insights/:id");

async function call(handler: (request: Request, route: { params: Promise<unknown> }) => Promise<Response>, method: string, path: string, params: Record<string, string> = {}, body?: unknown, project = projectId) {
  const response = await handler(
    new Request(`http://localhost/api/projects/${project}/${path}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    { params: Promise.resolve({ project_id: String(project), ...params }) },
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const DAY = 86_400_000;
const startOfToday = () => Math.floor(Date.now() / DAY) * DAY;

/** Events of `event`: `counts[0]` the day before yesterday, `[1]` yesterday, `[2]` today (UTC, the project's zone). */
async function ingest(event: string, counts: [number, number, number]) {
  const batch: object[] = [];
  const today = startOfToday();
  counts.forEach((n, day) => {
    // Noon of the two past days; today, a moment ago (today has begun by then).
    const at = day === 2 ? Math.max(today, Date.now() - 1000) : today - (2 - day) * DAY + 12 * 3_600_000;
    for (let i = 0; i < n; i++) batch.push({ event, distinct_id: `${event}-${day}-${i}`, timestamp: new Date(at).toISOString(), properties: {} });
  });
  await sendBatch(token, batch);
}
let token: string;

async function trendsInsight(events: string[], display?: string): Promise<number> {
  const query = {
    kind: "InsightVizNode",
    source: { kind: "TrendsQuery", series: events.map((event) => ({ kind: "EventsNode", event })), interval: "day", dateRange: { date_from: "-7d" }, ...(display ? { trendsFilter: { display } } : {}) },
  };
  const answer = await call(insights.POST, "POST", "insights/", {}, { name: `${events.join(", ")} ${display ?? ""}`, query, saved: true });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.id;
}

async function createAlert(body: Record<string, unknown>) {
  const answer = await call(alerts.POST, "POST", "alerts/", {}, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}
const checked = async (id: string) => {
  const answer = await call(checkNow.POST, "POST", `alerts/${id}/check_now/`, { id });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};
const patch = async (id: string, body: unknown) => {
  const answer = await call(alert.PATCH, "PATCH", `alerts/${id}/`, { id }, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};
const bounds = (b: { lower?: number; upper?: number }, type = "absolute") => ({ configuration: { type, bounds: b } });

let signups: number;
let logouts: number;
let twoSeries: number;

beforeAll(async () => {
  process.env.BURROW_API_RATE_LIMIT_PER_MINUTE = "1000000";
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "alerts@example.com", password: "pw12345678" });
  projectId = owner.project_id;
  apiKey = owner.personal_api_key;
  token = owner.project_api_key;
  userId = owner.user.id;
  otherProjectId = (await bootstrap(db.prisma, { email: "other@example.com", password: "pw12345678", organization: "Other" })).project_id;
  sink = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ path: req.url ?? "/", body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") });
      const code = req.url?.startsWith("/broken") ? 500 : 200;
      res.writeHead(code).end(code === 200 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  port = (sink.address() as AddressInfo).port;
  process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
  // signup: 2, 5, 1 — logout: 4, 1, 0.
  await ingest("signup", [2, 5, 1]);
  await ingest("logout", [4, 1, 0]);
  signups = await trendsInsight(["signup"]);
  logouts = await trendsInsight(["logout"]);
  twoSeries = await trendsInsight(["logout", "signup"]);
});

afterAll(async () => {
  sink.closeAllConnections();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  delete process.env.BURROW_OUTBOUND_ALLOWLIST;
  await closeDb();
});

describe(`insight alerts (${testStoresName})`, () => {
  it("fires on an absolute upper bound, notifies the webhook, and resolves when the bound is raised", async () => {
    const created = await createAlert({ insight: signups, name: "Signup spike", threshold: bounds({ upper: 3 }), webhook_url: `http://127.0.0.1:${port}/hook`, subscribed_users: [userId] });
    expect(created).toMatchObject({
      name: "Signup spike",
      insight: { id: signups },
      state: "Not firing",
      enabled: true,
      calculation_interval: "daily",
      condition: { type: "absolute_value" },
      config: { type: "TrendsAlertConfig", series_index: 0 },
      threshold: { configuration: { type: "absolute", bounds: { upper: 3 } } },
      subscribed_users: [{ id: userId, email: "alerts@example.com" }],
      checks: [],
    });
    expect(created.threshold.id).toMatch(/^[0-9a-f-]{36}$/);
    const before = received.length;

    const firing = await checked(created.id);
    expect(firing.state).toBe("Firing");
    expect(firing.checks[0]).toMatchObject({ state: "Firing", calculated_value: 5, error: null, targets_notified: { webhooks: [{ url: `http://127.0.0.1:${port}/hook`, status: 200, error: null }] } });
    expect(firing.last_notified_at).not.toBeNull();
    expect(received.slice(before)).toHaveLength(1);
    expect(received.at(-1)!.body).toMatchObject({
      event: "alert_firing",
      alert: { id: created.id, name: "Signup spike", state: "Firing" },
      insight: { id: signups },
      check: { calculated_value: 5, breaches: ["signup (5) is more than upper threshold (3)"] },
    });

    // Still firing: no second notice.
    expect((await checked(created.id)).checks[0]).toMatchObject({ state: "Firing", targets_notified: {} });
    expect(received.slice(before)).toHaveLength(1);

    await patch(created.id, { threshold: bounds({ upper: 10 }) });
    const resolved = await checked(created.id);
    expect(resolved.state).toBe("Not firing");
    expect(resolved.checks.map((c: { state: string }) => c.state)).toEqual(["Not firing", "Firing", "Firing"]);
    expect(received.slice(before).map((r) => r.body.event)).toEqual(["alert_firing", "alert_resolved"]);

    const history = await call(alert.GET, "GET", `alerts/${created.id}/?checks_limit=50`, { id: created.id });
    expect(history.body.checks).toHaveLength(3);
  });

  it("e-mails the subscribed users on firing and on resolving, and records when e-mail is not set up", async () => {
    const smtp = await startSmtpSink();
    process.env.SMTP_URL = smtp.url;
    process.env.EMAIL_FROM = "Burrow <burrow@example.com>";
    try {
      const mailed = await createAlert({ insight: signups, name: "Mailed", threshold: bounds({ upper: 4 }), subscribed_users: [userId] });
      expect((await checked(mailed.id)).checks[0]).toMatchObject({ state: "Firing", targets_notified: { users: ["alerts@example.com"] } });
      const [firing] = await smtp.waitFor(1);
      expect(firing!.subject).toBe('Alert "Mailed" is firing');
      expect([firing!.to].flat().flatMap((to) => to!.value.map((v) => v.address))).toEqual(["alerts@example.com"]);
      expect(firing!.text).toContain("signup (5) is more than upper threshold (4)");
      expect(firing!.html).toContain("/insights/");
      await patch(mailed.id, { threshold: bounds({ upper: 5 }) });
      expect((await checked(mailed.id)).state).toBe("Not firing");
      const [, resolved] = await smtp.waitFor(2);
      expect(resolved!.subject).toBe('Alert "Mailed" resolved');

      delete process.env.SMTP_URL;
      delete process.env.EMAIL_FROM;
      await patch(mailed.id, { threshold: bounds({ upper: 4 }) });
      expect((await checked(mailed.id)).checks[0]).toMatchObject({ state: "Firing", targets_notified: { email_error: expect.stringContaining("SMTP_URL") } });
      expect(smtp.messages).toHaveLength(2);
    } finally {
      delete process.env.SMTP_URL;
      delete process.env.EMAIL_FROM;
      await smtp.close();
    }
  });

  it("fires on a lower bound, and on the ongoing interval with check_ongoing_interval", async () => {
    const lower = await createAlert({ insight: signups, name: "Too few", threshold: bounds({ lower: 6 }) });
    expect(await checked(lower.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 5 }] });
    await patch(lower.id, { threshold: bounds({ lower: 5 }) });
    expect((await checked(lower.id)).state).toBe("Not firing");

    const ongoing = await createAlert({ insight: signups, name: "Today", threshold: bounds({ upper: 0 }), config: { series_index: 0, check_ongoing_interval: true } });
    expect(await checked(ongoing.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 1 }] });
  });

  it("checks relative increases and decreases, as numbers and as percentages", async () => {
    // signup: 2 → 5, an increase of 3 (150 %).
    const increase = await createAlert({ insight: signups, name: "Growth", condition: { type: "relative_increase" }, threshold: bounds({ upper: 2 }) });
    expect(await checked(increase.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 3 }] });
    await patch(increase.id, { threshold: bounds({ upper: 3 }) });
    expect((await checked(increase.id)).state).toBe("Not firing");

    const percent = await createAlert({ insight: signups, name: "Growth %", condition: { type: "relative_increase" }, threshold: bounds({ upper: 1 }, "percentage") });
    expect(await checked(percent.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 1.5 }] });
    await patch(percent.id, { threshold: bounds({ upper: 2 }, "percentage") });
    expect((await checked(percent.id)).state).toBe("Not firing");

    // logout: 4 → 1, a decrease of 3 (75 %).
    const decrease = await createAlert({ insight: logouts, name: "Drop", condition: { type: "relative_decrease" }, threshold: bounds({ upper: 2 }) });
    expect(await checked(decrease.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 3 }] });
    const decreasePercent = await createAlert({ insight: logouts, name: "Drop %", condition: { type: "relative_decrease" }, threshold: bounds({ upper: 0.8 }, "percentage") });
    expect(await checked(decreasePercent.id)).toMatchObject({ state: "Not firing", checks: [{ calculated_value: 0.75 }] });
    await patch(decreasePercent.id, { threshold: bounds({ upper: 0.5 }, "percentage") });
    expect((await checked(decreasePercent.id)).state).toBe("Firing");
  });

  it("watches the series series_index names", async () => {
    const first = await createAlert({ insight: twoSeries, name: "Logouts", threshold: bounds({ upper: 3 }), config: { series_index: 0 } });
    const second = await createAlert({ insight: twoSeries, name: "Signups", threshold: bounds({ upper: 3 }), config: { series_index: 1 } });
    expect(await checked(first.id)).toMatchObject({ state: "Not firing", checks: [{ calculated_value: 1 }] });
    expect(await checked(second.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 5 }] });
    const missing = await createAlert({ insight: twoSeries, name: "None", threshold: bounds({ upper: 3 }), config: { series_index: 7 } });
    expect(await checked(missing.id)).toMatchObject({ state: "Errored", checks: [{ state: "Errored", calculated_value: null, error: { message: expect.stringContaining("no series 7") } }] });
  });

  it("checks a single-number insight on its total, absolute only", async () => {
    const number = await trendsInsight(["signup"], "BoldNumber");
    const total = await createAlert({ insight: number, name: "Total", threshold: bounds({ upper: 7 }) });
    expect(await checked(total.id)).toMatchObject({ state: "Firing", checks: [{ calculated_value: 8 }] });
    const relative = await call(alerts.POST, "POST", "alerts/", {}, { insight: number, name: "No", condition: { type: "relative_increase" }, threshold: bounds({ upper: 1 }) });
    expect(relative).toMatchObject({ status: 400, body: { type: "validation_error", attr: "condition" } });
  });

  it("advances next_check_at on the schedule, by each calculation_interval", async () => {
    const hourly = await createAlert({ insight: signups, name: "Hourly", threshold: bounds({ upper: 100 }), calculation_interval: "hourly" });
    const weekly = await createAlert({ insight: signups, name: "Weekly", threshold: bounds({ upper: 100 }), calculation_interval: "weekly" });
    const disabled = await createAlert({ insight: signups, name: "Off", threshold: bounds({ upper: 1 }), enabled: false });
    expect(new Date(hourly.next_check_at).getTime()).toBeLessThanOrEqual(Date.now());
    const start = Date.now();
    expect(await checkDueAlerts(db)).toBeGreaterThanOrEqual(2);
    const get = async (id: string) => (await call(alert.GET, "GET", `alerts/${id}/`, { id })).body;
    const h = await get(hourly.id);
    const w = await get(weekly.id);
    expect(h.checks).toHaveLength(1);
    expect(new Date(h.last_checked_at).getTime()).toBeGreaterThanOrEqual(start - 1000);
    const hourAhead = new Date(h.next_check_at).getTime() - new Date(h.last_checked_at).getTime();
    expect(hourAhead).toBe(3_600_000);
    expect(new Date(w.next_check_at).getTime() - new Date(w.last_checked_at).getTime()).toBe(7 * DAY);
    expect((await get(disabled.id)).checks).toHaveLength(0);
    // Nothing is due any more: the next pass checks nothing.
    expect(await checkDueAlerts(db)).toBe(0);
    expect((await get(hourly.id)).checks).toHaveLength(1);
  });

  it.skipIf(testDbKind === "pglite")("checks on the workers' connections: a scheduled pass finishes while requests hold every connection of theirs", async () => {
    const due = await createAlert({ insight: signups, name: "Beside busy requests", threshold: bounds({ upper: 3 }) });
    expect(await whileRequestConnectionsHeld(db, () => checkDueAlerts(db))).toBeGreaterThanOrEqual(1);
    // Checked for real (signups today: 1, yesterday 5 over the upper bound 3), not errored waiting for a connection.
    const [check] = (await call(alert.GET, "GET", `alerts/${due.id}/`, { id: due.id })).body.checks;
    expect(check).toMatchObject({ state: "Firing", error: null });
  });

  it("snoozes: no scheduled check, no notice, state Snoozed until snoozed_until", async () => {
    const snoozy = await createAlert({ insight: signups, name: "Snoozy", threshold: bounds({ upper: 1 }), webhook_url: `http://127.0.0.1:${port}/snoozy` });
    const until = new Date(Date.now() + DAY).toISOString();
    expect(await patch(snoozy.id, { snoozed_until: until })).toMatchObject({ state: "Snoozed", snoozed_until: until });
    await checkDueAlerts(db);
    expect((await call(alert.GET, "GET", `alerts/${snoozy.id}/`, { id: snoozy.id })).body.checks).toHaveLength(0);
    const manual = await checked(snoozy.id);
    expect(manual).toMatchObject({ state: "Snoozed", checks: [{ state: "Firing", targets_notified: {} }] });
    expect(received.filter((r) => r.path === "/snoozy")).toHaveLength(0);
    // The snooze is lifted: due at the next pass, not at its scheduled time (its state is not known), and the next check notifies.
    await db.prisma.alert.update({ where: { id: snoozy.id }, data: { nextCheckAt: new Date(Date.now() + DAY) } });
    const lifted = await patch(snoozy.id, { snoozed_until: null });
    expect(lifted.state).toBe("Not firing");
    expect(new Date(lifted.next_check_at).getTime()).toBeLessThanOrEqual(Date.now());
    const ended = await checked(snoozy.id);
    expect(ended).toMatchObject({ state: "Firing", snoozed_until: null });
    expect(ended.checks[0]).toMatchObject({ state: "Firing", targets_notified: { webhooks: [{ status: 200 }] } });
    expect(received.filter((r) => r.path === "/snoozy")).toHaveLength(1);
  });

  it("skip_weekend: a scheduled check on Saturday or Sunday in the project's time zone is skipped, the schedule moved on", async () => {
    const { timezone } = await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } });
    await db.prisma.project.update({ where: { id: projectId }, data: { timezone: "Asia/Tokyo" } });
    try {
      const weekendless = await createAlert({ insight: signups, name: "Weekdays", threshold: bounds({ upper: 100 }), skip_weekend: true });
      const always = await createAlert({ insight: signups, name: "Every day", threshold: bounds({ upper: 100 }) });
      const checksOf = async (id: string) => (await call(alert.GET, "GET", `alerts/${id}/`, { id })).body as { checks: unknown[]; next_check_at: string };
      // Friday 20:00 UTC is Saturday 05:00 in Tokyo: skipped, next check past the weekend (Monday in Tokyo).
      const saturdayInTokyo = new Date("2026-11-27T20:00:00Z");
      await checkAlert(db, projectId, weekendless.id, { scheduled: true, now: saturdayInTokyo });
      await checkAlert(db, projectId, always.id, { scheduled: true, now: saturdayInTokyo });
      const skipped = await checksOf(weekendless.id);
      expect(skipped.checks).toHaveLength(0);
      expect(skipped.next_check_at).toBe("2026-11-29T20:00:00.000Z");
      expect((await checksOf(always.id)).checks).toHaveLength(1);
      // Sunday 16:00 UTC is Monday 01:00 in Tokyo: checked.
      await checkAlert(db, projectId, weekendless.id, { scheduled: true, now: new Date("2026-11-29T16:00:00Z") });
      expect((await checksOf(weekendless.id)).checks).toHaveLength(1);
      // "Check now" is not a scheduled check: it checks on a weekend too.
      await checkAlert(db, projectId, weekendless.id, { scheduled: false, now: saturdayInTokyo });
      expect((await checksOf(weekendless.id)).checks).toHaveLength(2);
    } finally {
      await db.prisma.project.update({ where: { id: projectId }, data: { timezone } });
    }
  });

  it("a disabled alert is not checked by the schedule; enabled again, it is due at once", async () => {
    const off = await createAlert({ insight: signups, name: "Paused", threshold: bounds({ upper: 1 }), webhook_url: `http://127.0.0.1:${port}/paused` });
    expect(await patch(off.id, { enabled: false })).toMatchObject({ enabled: false });
    await checkDueAlerts(db);
    const get = async () => (await call(alert.GET, "GET", `alerts/${off.id}/`, { id: off.id })).body;
    expect((await get()).checks).toHaveLength(0);
    expect(received.filter((r) => r.path === "/paused")).toHaveLength(0);
    expect(await patch(off.id, { enabled: true })).toMatchObject({ enabled: true });
    expect(new Date((await get()).next_check_at).getTime()).toBeLessThanOrEqual(Date.now());
    await checkDueAlerts(db);
    expect(await get()).toMatchObject({ state: "Firing", checks: [{ state: "Firing" }] });
    expect(received.filter((r) => r.path === "/paused")).toHaveLength(1);
  });

  it("errors when the insight is deleted, and records a receiver's failure without failing the check", async () => {
    const id = await trendsInsight(["signup"]);
    const broken = await createAlert({ insight: id, name: "Broken hook", threshold: bounds({ upper: 1 }), webhook_url: `http://127.0.0.1:${port}/broken` });
    expect(await checked(broken.id)).toMatchObject({ state: "Firing", checks: [{ targets_notified: { webhooks: [{ status: 500, error: "The receiver answered HTTP 500." }] } }] });
    expect((await call(insight.PATCH, "PATCH", `insights/${id}/`, { id: String(id) }, { deleted: true })).status).toBe(200);
    const errored = await checked(broken.id);
    expect(errored.state).toBe("Errored");
    expect(errored.checks[0]).toMatchObject({ state: "Errored", calculated_value: null, error: { message: "The alert's insight was deleted." } });
  });

  it("refuses a webhook URL reaching 127.0.0.1 unless allowlisted, when saved and when connecting", async () => {
    delete process.env.BURROW_OUTBOUND_ALLOWLIST;
    try {
      for (const url of [`http://127.0.0.1:${port}/`, "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/", "http://localhost/", "ftp://example.com/"]) {
        const answer = await call(alerts.POST, "POST", "alerts/", {}, { insight: signups, name: "Blocked", threshold: bounds({ upper: 1 }), webhook_url: url });
        expect(answer, url).toMatchObject({ status: 400, body: { type: "validation_error", attr: "webhook_url" } });
      }
    } finally {
      process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
    }
    const allowed = await createAlert({ insight: signups, name: "Allowed then not", threshold: bounds({ upper: 1 }), webhook_url: `http://127.0.0.1:${port}/later` });
    delete process.env.BURROW_OUTBOUND_ALLOWLIST;
    try {
      const after = await checked(allowed.id);
      expect(after.state).toBe("Firing");
      expect(after.checks[0].targets_notified.webhooks[0]).toMatchObject({ status: null, error: expect.stringContaining("BURROW_OUTBOUND_ALLOWLIST") });
      expect(received.filter((r) => r.path === "/later")).toHaveLength(0);
    } finally {
      process.env.BURROW_OUTBOUND_ALLOWLIST = "127.0.0.1";
    }
  });

  it("answers bad input with a 4xx naming the field", async () => {
    const cases: [unknown, string | null][] = [
      [{ insight: signups, name: "x" }, "threshold"],
      [{ insight: signups, name: "", threshold: bounds({ upper: 1 }) }, "name"],
      [{ insight: signups, name: "x", threshold: bounds({}) }, "threshold__configuration__bounds"],
      [{ insight: signups, name: "x", threshold: bounds({ lower: 5, upper: 1 }) }, "threshold__configuration__bounds"],
      [{ insight: signups, name: "x", threshold: bounds({ upper: 1 }, "percentage") }, "threshold"],
      [{ insight: signups, name: "x", threshold: bounds({ lower: 1 }), config: { check_ongoing_interval: true } }, "config"],
      [{ insight: signups, name: "x", threshold: bounds({ upper: 1 }), calculation_interval: "yearly" }, "calculation_interval"],
      [{ insight: signups, name: "x", threshold: bounds({ upper: 1 }), condition: { type: "sideways" } }, "condition__type"],
      [{ insight: signups, name: "x", threshold: bounds({ upper: "many" as unknown as number }) }, "threshold__configuration__bounds__upper"],
      [{ insight: 99999999, name: "x", threshold: bounds({ upper: 1 }) }, "insight"],
      [{ insight: signups, name: "x", threshold: bounds({ upper: 1 }), subscribed_users: [999999] }, "subscribed_users"],
      [{ insight: signups, name: "x", threshold: bounds({ upper: 1 }), webhook_url: "not a url" }, "webhook_url"],
    ];
    for (const [body, attr] of cases) {
      const answer = await call(alerts.POST, "POST", "alerts/", {}, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body, JSON.stringify(body)).toMatchObject({ type: "validation_error", attr });
    }
    const existing = await createAlert({ insight: signups, name: "Valid", threshold: bounds({ upper: 1 }) });
    expect(await call(alert.PATCH, "PATCH", `alerts/${existing.id}/`, { id: existing.id }, { threshold: bounds({ upper: 1 }, "percentage") })).toMatchObject({ status: 400, body: { attr: "threshold" } });
    expect((await call(alert.GET, "GET", "alerts/nope/", { id: "nope" })).status).toBe(404);
    expect((await call(alert.GET, "GET", "alerts/0190c000-0000-7000-8000-000000000000/", { id: "0190c000-0000-7000-8000-000000000000" })).status).toBe(404);
    // Another project's alert is not found from this one.
    expect((await call(alert.GET, "GET", `alerts/${existing.id}/`, { id: existing.id }, undefined, otherProjectId)).status).toBe(403);
    expect((await call(alert.DELETE, "DELETE", `alerts/${existing.id}/`, { id: existing.id })).status).toBe(204);
    expect((await call(alert.GET, "GET", `alerts/${existing.id}/`, { id: existing.id })).status).toBe(404);
  });

  it("has no cap on the number of alerts, and lists them by insight", async () => {
    const id = await trendsInsight(["logout"]);
    for (let i = 0; i < 12; i++) await createAlert({ insight: id, name: `Many ${i}`, threshold: bounds({ upper: i }) });
    const page = await call(alerts.GET, "GET", `alerts/?insight=${id}&limit=5`);
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(12);
    expect(page.body.results).toHaveLength(5);
    expect(page.body.next).toContain("offset=5");
    expect((await call(alerts.GET, "GET", "alerts/?insight=abc")).status).toBe(400);
  });
});
