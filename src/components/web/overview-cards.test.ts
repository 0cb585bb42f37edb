/** The overview cards as the page renders them: every figure with its sparkline when its series came back. */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { OverviewCards } from "./overview-cards";
import { overviewItems, sessionTrendSeries, trendSeries, type TrendSeries } from "./web-query";

const ITEMS = overviewItems([
  { key: "visitors", kind: "unit", value: 3, previous: 2, changeFromPreviousPct: 50 },
  { key: "views", kind: "unit", value: 7, previous: 5, changeFromPreviousPct: 40 },
  { key: "sessions", kind: "unit", value: 4, previous: 4, changeFromPreviousPct: 0 },
  { key: "session duration", kind: "duration_s", value: 65, previous: null, changeFromPreviousPct: null },
  { key: "bounce rate", kind: "percentage", value: 25, previous: 50, changeFromPreviousPct: -50, isIncreaseBad: true },
])!;

const result = (data: number[]) => ({ data, labels: ["1-Nov", "2-Nov", "3-Nov"], days: ["2026-11-01", "2026-11-02", "2026-11-03"] });
const GRAPH = trendSeries([result([1, 2, 3]), result([2, 2, 3]), result([1, 1, 2])])!;
const SESSIONS = sessionTrendSeries([result([38.75, 65, 12]), result([0.25, 0.5, 0])])!;

function sparklines(series: TrendSeries[] | undefined): Map<string, string> {
  const html = renderToStaticMarkup(createElement(OverviewCards, { items: ITEMS, series, error: null, loading: false, onRetry: () => {}, period: "Last 7 days" }));
  const cards = html.split('data-testid="web-overview-').slice(1);
  return new Map(
    cards.flatMap((card) => {
      const key = card.slice(0, card.indexOf('"'));
      const label = /data-testid="overview-sparkline"/.test(card) ? /<svg[^>]*aria-label="([^"]*)"[^>]*data-testid="overview-sparkline"/.exec(card)?.[1] : undefined;
      return label === undefined ? [] : [[key, label]];
    }),
  );
}

describe("OverviewCards", () => {
  it("draws a sparkline in all five cards, summarised in each card's unit", () => {
    const lines = sparklines([...GRAPH, ...SESSIONS]);
    expect([...lines.keys()]).toEqual(["visitors", "views", "sessions", "session-duration", "bounce-rate"]);
    expect(lines.get("session-duration")).toBe("Session duration over the range: from 39s to 12s, highest 1m 05s");
    expect(lines.get("bounce-rate")).toBe("Bounce rate over the range: from 25% to 0%, highest 50%");
    expect(lines.get("visitors")).toBe("Visitors over the range: from 1 to 3, highest 3");
  });

  it("leaves out the sparklines whose series did not come back", () => {
    expect([...sparklines(GRAPH).keys()]).toEqual(["visitors", "views", "sessions"]);
    expect([...sparklines(undefined).keys()]).toEqual([]);
  });
});
