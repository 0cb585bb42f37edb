/** How the web analytics page writes its numbers and breakdown values. */
import type { OverviewItem, WebBreakdown } from "./web-query";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

/** A count: exact below 10,000, then compact (12.3K). */
export function formatCount(value: number): string {
  return Math.abs(value) < 10_000 ? integer.format(value) : compact.format(value);
}

/** A share (0–1) as a whole percentage, `25%`; an em dash when there is none, as the overview cards (a page no session entered on has no bounce rate). */
export function formatRate(value: number | null): string {
  return value === null ? "—" : `${integer.format(value * 100)}%`;
}

/** Seconds as PostHog writes a session duration: `45s`, `3m 05s`, `1h 02m`. */
export function formatDuration(seconds: number): string {
  const total = Math.round(seconds);
  if (total < 60) return `${total}s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes}m ${String(total % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

/** An overview figure in its unit; an em dash when there is none (no sessions, say). */
export function formatOverviewValue(item: Pick<OverviewItem, "kind" | "value">): string {
  if (item.value === null) return "—";
  switch (item.kind) {
    case "duration_s":
      return formatDuration(item.value);
    case "percentage":
      return `${integer.format(item.value)}%`;
    case "currency":
      return new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 }).format(item.value);
    default:
      return formatCount(item.value);
  }
}

/** Good, bad or neither: a rise is good unless the figure is one where rising is bad (bounce rate). */
export type ChangeTone = "good" | "bad" | "neutral";

export function changeTone(item: Pick<OverviewItem, "changeFromPreviousPct" | "isIncreaseBad">): ChangeTone {
  const change = item.changeFromPreviousPct;
  if (change === null || change === 0) return "neutral";
  return change > 0 !== item.isIncreaseBad ? "good" : "bad";
}

/** `+12%`, `−5%`, `0%`; null when there is nothing to compare with. */
export function changeText(change: number | null): string | null {
  if (change === null) return null;
  if (change === 0) return "0%";
  return `${change > 0 ? "+" : "−"}${integer.format(Math.abs(change))}%`;
}

/** The overview keys PostHog sends, as this page titles them. */
export const OVERVIEW_TITLES: Record<string, string> = {
  visitors: "Visitors",
  views: "Page views",
  sessions: "Sessions",
  "session duration": "Session duration",
  "bounce rate": "Bounce rate",
  // A goal's cards, named as the tables' columns (and short enough for a phone's card).
  "total conversions": "Conversions",
  "unique conversions": "Converted",
  "conversion rate": "Conversion rate",
};

export function overviewTitle(key: string): string {
  return OVERVIEW_TITLES[key] ?? key.charAt(0).toUpperCase() + key.slice(1);
}

let regionNames: Intl.DisplayNames | null | undefined;

/** A country's English name from its ISO code, or the code itself. */
function countryName(code: string): string {
  if (regionNames === undefined) {
    try {
      regionNames = new Intl.DisplayNames(["en"], { type: "region" });
    } catch {
      regionNames = null;
    }
  }
  try {
    return (/^[A-Za-z]{2}$/.test(code) && regionNames?.of(code.toUpperCase())) || code;
  } catch {
    return code;
  }
}

const isBlank = (value: unknown) => value === null || value === undefined || value === "";

/** A breakdown value in words: countries by name, viewports as `1280 × 800`, UTC offsets, `(none)` for missing values, posthog-js's `$direct` referrer as "Direct". */
export function breakdownLabel(breakdown: WebBreakdown, value: unknown): string {
  if (isBlank(value) || (Array.isArray(value) && value.every(isBlank))) return "(none)";
  if (value === "$direct") return "Direct";
  if (Array.isArray(value)) {
    const parts = value.filter((part) => !isBlank(part)).map(String);
    if (breakdown === "Viewport" && parts.length === 2) return `${parts[0]} × ${parts[1]}`;
    // Region: (country, subdivision code, subdivision name); City: (country, city). Name first.
    if ((breakdown === "Region" || breakdown === "City") && parts.length >= 2) {
      const [country, ...rest] = parts;
      return `${rest[rest.length - 1]}, ${countryName(country!)}`;
    }
    return parts.join(", ");
  }
  if (breakdown === "Country" && typeof value === "string") return countryName(value);
  if (breakdown === "Timezone" && (typeof value === "number" || /^-?[0-9.]+$/.test(String(value)))) {
    const hours = Number(value);
    return hours === 0 ? "UTC" : `UTC${hours > 0 ? "+" : "−"}${Math.abs(hours)}`;
  }
  return String(value);
}
