/**
 * Enrichment at ingestion as web analytics sees it: events sent through the real `/batch/`
 * handler from a known IP (81.2.69.142: GB, Bracknell in the shipped GeoLite2 database) and
 * a known user agent get `$geoip_*`, `$browser`, `$os` and `$device_type` unless the client
 * sent them, the event opts out, the project anonymises IPs or turns enrichment off; the
 * Country, City, Browser, OS and DeviceType tables then show them.
 */
import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testContext } from "@/test-support/context";
import { bootstrap, getProjectResource, updateProjectResource } from "@/server/accounts/service";
import { closeDb, registerDb } from "@/server/db";
import type { Database } from "@/server/db/client";
import { createTestDatabase, testStoresName } from "@/test-support/db";
import { handleBatch } from "@/server/http/capture";
import { webStatsTableKind } from "./service";

const KNOWN_IP = "81.2.69.142";
const CHROME_ON_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";
const SAFARI_ON_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1";

let db: Database;
let organizationId: string;
let projectId: number;
let token: string;
let ownerId: number;

async function send(apiKey: string, batch: object[], headers: Record<string, string> = { "x-forwarded-for": KNOWN_IP, "user-agent": CHROME_ON_WINDOWS }): Promise<void> {
  const response = await handleBatch(
    new Request("http://burrow.test/batch/", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ api_key: apiKey, batch }) }),
  );
  expect(await response.text()).toBe('{"status":1}');
}

async function propertiesOf(project: number, distinctId: string): Promise<Record<string, unknown>> {
  const rows = await db.events.list(
    project,
    { format: "json", limit: 1, offset: 0, after: null, before: null, beforeUuid: null, event: null, distinctId, personId: null, properties: null },
    { limit: 1, offset: 0, cursor: null, now: new Date() },
  );
  expect(rows).toHaveLength(1);
  return rows[0]!.properties;
}

async function newProject(data: { anonymizeIps?: boolean; enrichEvents?: boolean }): Promise<{ id: number; token: string }> {
  const apiToken = `phc_${randomUUID().replaceAll("-", "")}`;
  const project = await db.prisma.project.create({ data: { organizationId, name: "Other", apiToken, ...data } });
  return { id: project.id, token: apiToken };
}

const pageview = (distinctId: string, properties: Record<string, unknown> = {}) => ({
  event: "$pageview",
  distinct_id: distinctId,
  timestamp: "2024-03-01T10:00:00Z",
  properties: { $session_id: uuidv7(), $pathname: "/", $current_url: "https://site.example/", ...properties },
});

beforeAll(async () => {
  db = await createTestDatabase();
  registerDb(db);
  const owner = await bootstrap(db.prisma, { email: "enrich@example.com", password: "pw12345678" });
  organizationId = owner.organization_id;
  ownerId = owner.user.id;
  projectId = owner.project_id;
  token = (await db.prisma.project.findUniqueOrThrow({ where: { id: projectId } })).apiToken;
}, 60_000);

afterAll(() => closeDb());

describe(`enrichment at ingestion on ${testStoresName}`, () => {
  it("adds GeoIP from the request's address and the browser from its user agent", async () => {
    await send(token, [pageview("plain")]);
    const properties = await propertiesOf(projectId, "plain");
    expect(properties).toMatchObject({
      $ip: KNOWN_IP,
      $geoip_country_code: "GB",
      $geoip_country_name: "United Kingdom",
      $geoip_city_name: "Bracknell",
      $geoip_subdivision_1_name: "England",
      $browser: "Chrome",
      $browser_version: 124,
      $os: "Windows",
      $device_type: "Desktop",
    });
  });

  it("keeps what the client sent, reads $raw_user_agent first, and never a server SDK's own user agent", async () => {
    await send(token, [
      pageview("posthog-js", { $lib: "web", $browser: "Firefox", $geoip_country_code: "FR", $raw_user_agent: SAFARI_ON_IPHONE }),
      pageview("posthog-node", { $lib: "posthog-node" }),
    ]);
    const js = await propertiesOf(projectId, "posthog-js");
    expect(js).toMatchObject({ $browser: "Firefox", $geoip_country_code: "FR", $geoip_city_name: "Bracknell", $os: "iOS", $device_type: "Mobile" });
    const node = await propertiesOf(projectId, "posthog-node");
    expect(node.$geoip_country_code).toBe("GB");
    expect(node).not.toHaveProperty("$browser");
  });

  it("skips GeoIP for an event with $geoip_disable, and for a project that anonymises IPs", async () => {
    await send(token, [pageview("opted-out", { $geoip_disable: true })]);
    expect(await propertiesOf(projectId, "opted-out")).not.toHaveProperty("$geoip_country_code");
    const anonymous = await newProject({ anonymizeIps: true });
    await send(anonymous.token, [pageview("anonymous")]);
    const properties = await propertiesOf(anonymous.id, "anonymous");
    expect(properties).not.toHaveProperty("$ip");
    expect(properties).not.toHaveProperty("$geoip_country_code");
    expect(properties.$browser).toBe("Chrome");
  });

  it("the project API shows enrich_events, on by default, and an admin turns it off; a member may not", async () => {
    const project = await newProject({});
    const ctx = await testContext(db, ownerId, project.id);
    expect(await getProjectResource(ctx)).toMatchObject({ enrich_events: true, anonymize_ips: false });
    expect(await updateProjectResource(ctx, { enrich_events: false })).toMatchObject({ enrich_events: false, anonymize_ips: false });
    await expect(updateProjectResource({ ...ctx, project: { ...ctx.project, membershipLevel: 1 } }, { enrich_events: true })).rejects.toMatchObject({ code: "permission_denied" });
    // Ingestion reads it (its key cache holds a project for 10 s: this key was never looked up).
    await send(project.token, [pageview("after-patch")]);
    expect(await propertiesOf(project.id, "after-patch")).not.toHaveProperty("$geoip_country_code");
  });

  it("adds nothing for a project that turned enrichment off", async () => {
    const plain = await newProject({ enrichEvents: false });
    await send(plain.token, [pageview("as-sent")]);
    const properties = await propertiesOf(plain.id, "as-sent");
    expect(properties.$ip).toBe(KNOWN_IP);
    for (const key of ["$geoip_country_code", "$browser", "$os", "$device_type"]) expect(properties).not.toHaveProperty(key);
  });

  it("feeds the Country, City, Browser, OS and DeviceType tables", async () => {
    const project = await newProject({});
    await send(project.token, [pageview("visitor-1"), pageview("visitor-2", { $pathname: "/pricing" })]);
    await send(project.token, [pageview("visitor-3")], { "x-forwarded-for": "8.8.8.8", "user-agent": SAFARI_ON_IPHONE });
    const table = async (breakdownBy: string) => {
      const spec = webStatsTableKind.spec({ kind: "WebStatsTableQuery", properties: [], breakdownBy, dateRange: { date_from: "2024-03-01", date_to: "2024-03-01" } }, null);
      const answer = await webStatsTableKind.compute({ db, projectId: project.id, zone: "UTC", now: new Date("2024-04-01T00:00:00Z") }, spec);
      return (answer.results as unknown[][]).map((row) => [row[0], (row[1] as number[])[0]]);
    };
    expect(await table("Country")).toEqual([
      ["GB", 2],
      ["US", 1],
    ]);
    expect(await table("City")).toEqual([
      [["GB", "Bracknell"], 2],
      [["US", null], 1],
    ]);
    expect(await table("Browser")).toEqual([
      ["Chrome", 2],
      ["Safari", 1],
    ]);
    expect(await table("OS")).toEqual([
      ["Windows", 2],
      ["iOS", 1],
    ]);
    expect(await table("DeviceType")).toEqual([
      ["Desktop", 2],
      ["Mobile", 1],
    ]);
  });
});
