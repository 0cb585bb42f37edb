/**
 * A chart's buckets named for people: short axis ticks for the interval ("14:00", "Nov 3",
 * "Nov 2026") and a longer title for the tooltip. Buckets come as the server's `days`, wall
 * times of the project's zone ("2026-11-03", "2026-11-03 14:00:00"): they are read as
 * written, never converted to the browser's zone.
 */

export type BucketInterval = "hour" | "day" | "week" | "month";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const LONG_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number | null;
}

/** "2026-11-03" or "2026-11-03 14:00:00" (also with a "T") as its parts; null for anything else. */
export function parseWall(text: unknown): Wall | null {
  if (typeof text !== "string") return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):\d{2})?/.exec(text);
  if (!match) return null;
  return { year: Number(match[1]), month: Number(match[2]) - 1, day: Number(match[3]), hour: match[4] === undefined ? null : Number(match[4]) };
}

const dayNumber = (wall: Wall) => Date.UTC(wall.year, wall.month, wall.day) / 86_400_000;

/**
 * The interval of a chart's buckets, read from the buckets themselves (a dashboard may
 * override the saved query's interval): times of day are hours, 7 days apart weeks, 28–31
 * days months. With fewer than two dated buckets, `fallback` (the query's interval).
 */
export function intervalOfDays(days: readonly unknown[] | undefined, fallback: BucketInterval = "day"): BucketInterval {
  const walls = (days ?? []).map(parseWall);
  const [first, second] = walls;
  if (first?.hour !== null && first?.hour !== undefined) return "hour";
  if (!first || !second) return fallback;
  const gap = dayNumber(second) - dayNumber(first);
  if (gap >= 28) return "month";
  if (gap === 7) return "week";
  return gap === 1 ? "day" : fallback;
}

/** The `interval` a trends query asks for (bare, or inside an InsightVizNode). */
export function queryInterval(query: unknown): BucketInterval {
  const node = query as { kind?: string; source?: unknown; interval?: unknown } | null;
  const source = (node?.kind === "InsightVizNode" ? node.source : node) as { interval?: unknown } | null;
  const interval = source?.interval;
  return interval === "hour" || interval === "week" || interval === "month" ? interval : "day";
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * An axis tick: hours "14:00" (midnight names the day, "Nov 3"), days and weeks "Nov 3"
 * ("Nov 3, 2025" when the chart spans years), months "Nov 2026". Text that is not a date is
 * shown as it is.
 */
export function bucketTick(day: unknown, interval: BucketInterval, { withYear = false }: { withYear?: boolean } = {}): string {
  const wall = parseWall(day);
  if (!wall) return String(day ?? "");
  const date = `${MONTHS[wall.month]} ${wall.day}${withYear ? `, ${wall.year}` : ""}`;
  switch (interval) {
    case "hour":
      return wall.hour === 0 || wall.hour === null ? date : `${pad(wall.hour)}:00`;
    case "month":
      return `${MONTHS[wall.month]} ${wall.year}`;
    default:
      return date;
  }
}

/** The tooltip's title: "Nov 3, 14:00", "Tue, Nov 3, 2026", "Week of Nov 1, 2026", "November 2026". */
export function bucketTitle(day: unknown, interval: BucketInterval): string {
  const wall = parseWall(day);
  if (!wall) return String(day ?? "");
  const date = `${MONTHS[wall.month]} ${wall.day}, ${wall.year}`;
  switch (interval) {
    case "hour":
      return `${MONTHS[wall.month]} ${wall.day}, ${pad(wall.hour ?? 0)}:00`;
    case "week":
      return `Week of ${date}`;
    case "month":
      return `${LONG_MONTHS[wall.month]} ${wall.year}`;
    default:
      return `${WEEKDAYS[new Date(Date.UTC(wall.year, wall.month, wall.day)).getUTCDay()]}, ${date}`;
  }
}

/** Whether the buckets reach into more than one calendar year (ticks then carry the year). */
export function spansYears(days: readonly unknown[] | undefined): boolean {
  const years = new Set((days ?? []).map((day) => parseWall(day)?.year).filter((year) => year !== undefined));
  return years.size > 1;
}
