/**
 * What a delivery carries and how it leaves: the report (per insight, a PNG drawn on the
 * server and a link back; a dashboard's chosen insights in layout order, at most 6) and the
 * webhook POST through the guarded outbound client (address rules and
 * BURROW_OUTBOUND_ALLOWLIST at connect time, redirects included).
 */
import { sharedTileOrder } from "@/server/dashboards/present";
import { findPublicDashboard } from "@/server/dashboards/service";
import type { Database } from "@/server/db/client";
import { serverEnvFrom } from "@/server/env";
import { computeSavedInsight, findLiveInsight } from "@/server/insights/service";
import { outboundRequest } from "@/server/outbound/service";
import { SUBSCRIPTION_LIMITS } from "./contract";
import { chartOf } from "./chart-data";
import { renderChartPng } from "./chart-image";
import { presentSubscription, resourceName } from "./present";
import type { SubscriptionRow } from "./store";

export interface ReportAsset {
  insightId: number;
  shortId: string;
  name: string;
  url: string;
  /** Null when the insight could not be computed or drawn (`error` says why). */
  png: Buffer | null;
  error: string | null;
}

export interface Report {
  kind: "Insight" | "Dashboard";
  name: string;
  url: string;
  /** PostHog's subject: "<Insight|Dashboard> report - <name>". */
  subject: string;
  summary: string;
  assets: ReportAsset[];
}

export class DeliveryError extends Error {
  override name = "DeliveryError";
}

const yieldToOthers = () => new Promise((resolve) => setImmediate(resolve));
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function assetOf(db: Database, projectId: number, siteUrl: string, insight: { id: number; shortId: string; name: string; query: unknown }, dashboardId: number | null): Promise<ReportAsset> {
  const url = `${siteUrl}/insights/${encodeURIComponent(insight.shortId)}${dashboardId === null ? "" : `?dashboard=${dashboardId}`}`;
  try {
    const computed = await computeSavedInsight(db, projectId, insight.id, dashboardId === null ? {} : { fromDashboard: dashboardId });
    const png = renderChartPng(chartOf(insight.name, insight.query, computed.result));
    return { insightId: insight.id, shortId: insight.shortId, name: insight.name, url, png, error: null };
  } catch (error) {
    return { insightId: insight.id, shortId: insight.shortId, name: insight.name, url, png: null, error: messageOf(error) };
  }
}

/** The report of a subscription as of now; throws DeliveryError when what it sends is gone. */
export async function buildReport(db: Database, row: SubscriptionRow): Promise<Report> {
  const siteUrl = serverEnvFrom().siteUrl;
  const summary = presentSubscription(row).summary;
  if (row.contentType === "dashboard" && row.dashboardId !== null) {
    const dashboard = await findPublicDashboard(db, row.projectId, row.dashboardId);
    if (!dashboard) throw new DeliveryError("The dashboard was deleted.");
    const chosen = new Set(row.dashboardExportInsights);
    const insights = sharedTileOrder(dashboard)
      .flatMap((tile) => (tile.insight && !tile.insight.deleted ? [tile.insight] : []))
      .filter((insight) => chosen.size === 0 || chosen.has(insight.id))
      .slice(0, SUBSCRIPTION_LIMITS.maxDashboardInsights);
    const assets: ReportAsset[] = [];
    for (const insight of insights) {
      const name = insight.name || insight.derivedName || "Untitled insight";
      assets.push(await assetOf(db, row.projectId, siteUrl, { id: insight.id, shortId: insight.shortId, name, query: insight.query }, dashboard.id));
      await yieldToOthers();
    }
    const name = dashboard.name || "Untitled dashboard";
    return { kind: "Dashboard", name, url: `${siteUrl}/dashboards/${dashboard.id}`, subject: `Burrow Dashboard report - ${name}`, summary, assets };
  }
  const insight = row.insightId === null ? null : await findLiveInsight(db, row.projectId, row.insightId);
  if (!insight) throw new DeliveryError("The insight was deleted.");
  const asset = await assetOf(db, row.projectId, siteUrl, insight, null);
  return { kind: "Insight", name: insight.name, url: asset.url, subject: `Burrow Insight report - ${insight.name}`, summary, assets: [asset] };
}

/** The webhook's JSON: the subscription, the resource and its link, and each insight's image as a data URL. */
export function webhookPayload(row: SubscriptionRow, report: Report, sentAt: Date, test: boolean): Record<string, unknown> {
  return {
    event: test ? "subscription_test" : "subscription_delivery",
    title: report.subject,
    sent_at: sentAt.toISOString(),
    subscription: { id: row.id, title: row.title, summary: report.summary },
    resource: { type: report.kind.toLowerCase(), id: row.contentType === "dashboard" ? row.dashboardId : row.insightId, name: resourceName(row) ?? report.name, url: report.url },
    insights: report.assets.map((asset) => ({
      id: asset.insightId,
      short_id: asset.shortId,
      name: asset.name,
      url: asset.url,
      image: asset.png ? `data:image/png;base64,${asset.png.toString("base64")}` : null,
      error: asset.error,
    })),
  };
}

export const WEBHOOK_TIMEOUT_MS = 15_000;

/** POSTs the report; a non-2xx answer or a refused address is a DeliveryError. */
export async function sendWebhook(url: string, payload: Record<string, unknown>): Promise<void> {
  let status: number;
  try {
    status = (await outboundRequest({ url, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(payload), timeoutMs: WEBHOOK_TIMEOUT_MS })).status;
  } catch (error) {
    throw new DeliveryError(messageOf(error));
  }
  if (status < 200 || status >= 300) throw new DeliveryError(`The webhook answered HTTP ${status}.`);
}
