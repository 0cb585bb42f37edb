/**
 * Built-in dashboard templates for `use_template`: each a name, a description and tiles
 * (insights as PostHog trends queries, or text) with their places on the 12-column grid.
 * The keys are PostHog's where PostHog has one ("DEFAULT_APP" is its product analytics
 * dashboard). Browser-safe: the create form lists them.
 */
import type { TileRect } from "./tile-layout";

export interface TemplateInsight {
  name: string;
  description: string;
  query: Record<string, unknown>;
}

export type TemplateTile = { rect: TileRect; color?: string } & ({ insight: TemplateInsight } | { text: string });

export interface DashboardTemplate {
  key: string;
  name: string;
  description: string;
  tiles: TemplateTile[];
}

const trends = (series: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  kind: "InsightVizNode",
  source: { kind: "TrendsQuery", series: series.map((node) => ({ kind: "EventsNode", ...node })), interval: "day", dateRange: { date_from: "-30d" }, ...extra },
});

const pageviews = { event: "$pageview", name: "$pageview", math: "total" };
const uniqueUsers = { event: "$pageview", name: "$pageview", math: "dau" };

export const DASHBOARD_TEMPLATES: readonly DashboardTemplate[] = [
  {
    key: "DEFAULT_APP",
    name: "Product analytics",
    description: "Traffic, active users, the most visited pages and feature flag use over the last 30 days.",
    tiles: [
      {
        rect: { x: 0, y: 0, w: 6, h: 5 },
        insight: { name: "Pageviews", description: "Pageviews per day.", query: trends([pageviews], { trendsFilter: { display: "ActionsLineGraph" } }) },
      },
      {
        rect: { x: 6, y: 0, w: 6, h: 5 },
        insight: { name: "Daily active users", description: "Unique users with a pageview, per day.", query: trends([uniqueUsers], { trendsFilter: { display: "ActionsLineGraph" } }) },
      },
      {
        rect: { x: 0, y: 5, w: 6, h: 5 },
        insight: {
          name: "Top pages",
          description: "Pageviews by path, the ten most visited.",
          query: trends([pageviews], { breakdownFilter: { breakdown: "$pathname", breakdown_type: "event", breakdown_limit: 10 }, trendsFilter: { display: "ActionsBarValue" } }),
        },
      },
      {
        rect: { x: 6, y: 5, w: 6, h: 5 },
        insight: {
          name: "Feature flag calls",
          description: "Flag evaluations reported by the SDKs ($feature_flag_called), by flag.",
          query: trends([{ event: "$feature_flag_called", name: "$feature_flag_called", math: "total" }], {
            breakdownFilter: { breakdown: "$feature_flag", breakdown_type: "event", breakdown_limit: 10 },
            trendsFilter: { display: "ActionsBar" },
          }),
        },
      },
    ],
  },
  {
    key: "WEB_TRAFFIC",
    name: "Website traffic",
    description: "Visitors, where they come from and what they read.",
    tiles: [
      {
        rect: { x: 0, y: 0, w: 4, h: 3 },
        insight: { name: "Unique visitors", description: "Unique users with a pageview in the last 30 days.", query: trends([uniqueUsers], { trendsFilter: { display: "BoldNumber" }, compareFilter: { compare: true } }) },
      },
      {
        rect: { x: 4, y: 0, w: 8, h: 3 },
        text: "Visitors are counted by distinct person: a person who signs in on two devices counts once.",
      },
      {
        rect: { x: 0, y: 3, w: 6, h: 5 },
        insight: {
          name: "Referring domains",
          description: "Pageviews by referring domain.",
          query: trends([pageviews], { breakdownFilter: { breakdown: "$referring_domain", breakdown_type: "event", breakdown_limit: 10 }, trendsFilter: { display: "ActionsPie" } }),
        },
      },
      {
        rect: { x: 6, y: 3, w: 6, h: 5 },
        insight: {
          name: "Top pages",
          description: "Pageviews by URL.",
          query: trends([pageviews], { breakdownFilter: { breakdown: "$current_url", breakdown_type: "event", breakdown_limit: 10 }, trendsFilter: { display: "ActionsTable" } }),
        },
      },
    ],
  },
];

export function findTemplate(key: string): DashboardTemplate | undefined {
  return DASHBOARD_TEMPLATES.find((template) => template.key === key);
}
