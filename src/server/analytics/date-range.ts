/**
 * An insight's date range, resolved as PostHog's QueryDateRange does, in the project's time
 * zone: which events count (an inclusive instant range) and which buckets the chart has
 * (wall-clock bucket starts). Relative dates reuse the events API's parser, applied to the
 * wall clock of the project's zone, so "-1m" from 31 March is the last day of February there.
 *
 * Wall-clock times are `Date`s whose UTC fields are the local fields ("wall dates"); they
 * never leave this module except as `YYYY-MM-DD HH:MM:SS` text for SQL and labels.
 */
import { AppError } from "@/server/errors";
import { parseTimeParam } from "@/server/input/time";

export const INTERVALS = ["hour", "day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];

/** PostHog's default range when `date_from` is not given: the last 7 days and today. */
const DEFAULT_DAYS = 7;
/** Most buckets one chart may have (an hourly chart over a year is 8,760). */
export const MAX_BUCKETS = 10_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------
// Time zones

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The zone if the runtime knows it, else UTC (a project's zone is a setting, not request input). */
export function knownZone(zone: string): string {
  try {
    formatterFor(zone);
    return zone;
  } catch {
    return "UTC";
  }
}

/** The wall clock of `zone` at `instant`. */
export function wallOf(instant: Date, zone: string): Date {
  if (zone === "UTC") return new Date(instant.getTime());
  const parts: Record<string, number> = {};
  for (const part of formatterFor(zone).formatToParts(instant)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const wall = new Date(Date.UTC(2000, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!, instant.getUTCMilliseconds()));
  wall.setUTCFullYear(parts.year!);
  return wall;
}

/**
 * The instant a wall-clock time of `zone` stands for. As PostgreSQL's `AT TIME ZONE`: a
 * time repeated by a DST change is its later occurrence (standard time), a time skipped by
 * one reads with the offset before the change.
 */
export function instantOf(wall: Date, zone: string): Date {
  if (zone === "UTC") return new Date(wall.getTime());
  const w = wall.getTime();
  const offsetAt = (t: number) => wallOf(new Date(t), zone).getTime() - t;
  // The offsets a day either side cover both sides of any one DST change.
  const candidates = [...new Set([w - offsetAt(w - DAY), w - offsetAt(w + DAY)])];
  const exact = candidates.filter((t) => wallOf(new Date(t), zone).getTime() === w);
  return new Date(Math.max(...(exact.length > 0 ? exact : candidates)));
}

// ---------------------------------------------------------------------------------------
// Wall-clock arithmetic

/** The start of the interval holding `wall`; weeks start on Sunday (PostHog's default week_start_day). */
export function startOfInterval(wall: Date, interval: Interval): Date {
  const d = new Date(wall.getTime());
  d.setUTCMinutes(0, 0, 0);
  if (interval === "hour") return d;
  d.setUTCHours(0);
  if (interval === "week") d.setUTCDate(d.getUTCDate() - d.getUTCDay());
  if (interval === "month") d.setUTCDate(1);
  return d;
}

/** The last millisecond of the interval holding `wall` (events are stored to the millisecond). */
function endOfInterval(wall: Date, interval: Interval): Date {
  return new Date(addIntervals(startOfInterval(wall, interval), interval, 1).getTime() - 1);
}

/** `wall` moved by `n` intervals (of the wall clock: a month is a calendar month). */
export function addIntervals(wall: Date, interval: Interval, n: number): Date {
  const d = new Date(wall.getTime());
  if (interval === "hour") d.setUTCHours(d.getUTCHours() + n);
  else if (interval === "day") d.setUTCDate(d.getUTCDate() + n);
  else if (interval === "week") d.setUTCDate(d.getUTCDate() + 7 * n);
  else d.setUTCMonth(d.getUTCMonth() + n);
  return d;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `YYYY-MM-DD HH:MM:SS` of a wall date: how buckets travel to SQL and back. */
export function wallText(wall: Date): string {
  return (
    `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())} ` +
    `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`
  );
}

/** A wall date from `YYYY-MM-DD HH:MM:SS`. */
export function wallFromText(text: string): Date {
  const [date, time = "00:00:00"] = text.split(" ");
  const [y, m, d] = date!.split("-").map(Number);
  const [hh, mm, ss] = time.split(":").map(Number);
  const wall = new Date(Date.UTC(2000, m! - 1, d!, hh, mm, ss));
  wall.setUTCFullYear(y!);
  return wall;
}

// ---------------------------------------------------------------------------------------
// date_from / date_to

/** `-7d`, `-24h`, `-1mStart`, `dStart`, `-1dEnd`: PostHog's relative dates, with an optional position. */
const RELATIVE_RE = /^-?([0-9]{1,4})?([hdwmqy])(Start|End)?$/;
const UNIT_INTERVAL: Record<string, Interval | "quarter" | "year"> = { h: "hour", d: "day", w: "week", m: "month", q: "quarter", y: "year" };
/** An ISO time that names its own offset: an instant, not a wall-clock time of the project. */
const HAS_OFFSET_RE = /[T ][0-9:.]+(Z|[+-][0-9]{2}(:?[0-9]{2})?| [0-9]{2}(:?[0-9]{2})?)$/;

interface Bound {
  wall: Date;
  /** Relative to now (PostHog's delta_mapping is set). */
  relative: boolean;
  /** A relative amount of hours (`-24h`): a day chart then starts at that hour, not at midnight. */
  hours: boolean;
}

function startOfUnit(wall: Date, unit: Interval | "quarter" | "year"): Date {
  if (unit === "quarter" || unit === "year") {
    const d = startOfInterval(wall, "month");
    d.setUTCMonth(unit === "year" ? 0 : d.getUTCMonth() - (d.getUTCMonth() % 3));
    return d;
  }
  return unit === "week" ? startOfInterval(wall, "week") : startOfInterval(wall, unit);
}

function endOfUnit(wall: Date, unit: Interval | "quarter" | "year"): Date {
  if (unit === "quarter" || unit === "year") {
    const start = startOfUnit(wall, unit);
    start.setUTCMonth(start.getUTCMonth() + (unit === "year" ? 12 : 3));
    return new Date(start.getTime() - 1);
  }
  return endOfInterval(wall, unit);
}

/**
 * One bound: `now`, a relative date (optionally `Start`/`End` of its unit), or ISO 8601 —
 * without an offset it is a wall-clock time of the project's zone, as PostHog reads it.
 * Throws the events API's 400 (attr `name`) for anything else.
 */
function parseBound(name: string, text: string, zone: string, now: Date): Bound {
  const nowWall = wallOf(now, zone);
  const relative = RELATIVE_RE.exec(text);
  if (relative) {
    const [, number = "0", unit, position] = relative;
    // Wall-clock arithmetic: the events API's parser on the zone's wall clock.
    let wall = parseTimeParam(name, `-${number}${unit}`, nowWall);
    if (position === "Start") wall = startOfUnit(wall, UNIT_INTERVAL[unit!]!);
    if (position === "End") wall = endOfUnit(wall, UNIT_INTERVAL[unit!]!);
    return { wall, relative: true, hours: unit === "h" };
  }
  if (text === "now") return { wall: nowWall, relative: true, hours: false };
  const date = parseTimeParam(name, text, now);
  return { wall: HAS_OFFSET_RE.test(text) ? wallOf(date, zone) : date, relative: false, hours: false };
}

/** A date range value PostHog accepts here: `all` (from only), relative, ISO, `now`. */
export function checkDateValue(name: string, text: string): void {
  if (name.endsWith("date_from") && text === "all") return;
  parseBound(name, text, "UTC", new Date());
}

export interface DateRangeInput {
  date_from?: string | null;
  date_to?: string | null;
}

export interface ResolvedDateRange {
  interval: Interval;
  zone: string;
  /** Events counted: timestamp ≥ from and ≤ to (instants). */
  from: Date;
  to: Date;
  /** The first and last bucket starts (wall clock); no buckets when first > last. */
  firstBucket: Date;
  lastBucket: Date;
  /** PostHog's `resolved_date_range`: the requested range in the project's zone, ISO with offset. */
  dateFrom: Date;
  dateTo: Date;
}

/**
 * Resolves `dateRange` for `interval` (PostHog's QueryDateRange and the trends query's
 * `date_from_with_adjusted_start_of_interval`):
 * - date_from: missing → start of the day 7 days ago; `all` → `earliest` (the project's first
 *   event). Events count from the start of its interval, except for an hourly chart of a
 *   relative date, or a daily chart of a relative amount of hours (`-24h`): then from the very time.
 * - date_to: missing → now. Not hourly: the end of its day. Hourly: the end of its hour when
 *   relative or missing, else the very time given.
 * - Buckets: from the interval holding date_from to the one holding date_to.
 */
export function resolveDateRange(
  input: DateRangeInput | undefined,
  interval: Interval,
  zone: string,
  now: Date,
  earliest: Date | null = null,
): ResolvedDateRange {
  const hourly = interval === "hour";
  let fromWall: Date;
  let fromExact = false;
  const dateFrom = input?.date_from ?? null;
  if (dateFrom === null) {
    fromWall = startOfInterval(wallOf(now, zone), "day");
    fromWall.setUTCDate(fromWall.getUTCDate() - DEFAULT_DAYS);
  } else if (dateFrom === "all") {
    fromWall = wallOf(earliest ?? now, zone);
  } else {
    const bound = parseBound("date_from", dateFrom, zone, now);
    fromWall = bound.wall;
    fromExact = bound.relative && (hourly || (interval === "day" && bound.hours));
  }

  let toWall: Date;
  const dateTo = input?.date_to ?? null;
  if (dateTo === null) {
    toWall = endOfInterval(wallOf(now, zone), hourly ? "hour" : "day");
  } else {
    const bound = parseBound("date_to", dateTo, zone, now);
    toWall = !hourly ? endOfInterval(bound.wall, "day") : bound.relative ? endOfInterval(bound.wall, "hour") : bound.wall;
  }

  const firstBucket = startOfInterval(fromWall, interval);
  const lastBucket = startOfInterval(toWall, interval);
  const buckets = countBuckets(firstBucket, lastBucket, interval);
  if (buckets > MAX_BUCKETS) {
    throw new AppError(
      "invalid_input",
      `The date range holds ${buckets} ${interval}s; at most ${MAX_BUCKETS} fit one chart: choose a longer interval or a shorter range.`,
      "query",
    );
  }
  return {
    interval,
    zone,
    from: instantOf(fromExact ? fromWall : firstBucket, zone),
    to: instantOf(toWall, zone),
    firstBucket,
    lastBucket,
    dateFrom: instantOf(fromWall, zone),
    dateTo: instantOf(toWall, zone),
  };
}

function countBuckets(first: Date, last: Date, interval: Interval): number {
  if (first > last) return 0;
  if (interval === "month") return (last.getUTCFullYear() - first.getUTCFullYear()) * 12 + last.getUTCMonth() - first.getUTCMonth() + 1;
  const size = interval === "hour" ? HOUR : interval === "day" ? DAY : 7 * DAY;
  // Wall dates have no DST: every step is exactly one size.
  return Math.round((last.getTime() - first.getTime()) / size) + 1;
}

/** Every bucket start from the range's first to its last (wall dates). */
export function bucketStarts(range: Pick<ResolvedDateRange, "firstBucket" | "lastBucket" | "interval">): Date[] {
  const out: Date[] = [];
  for (let wall = range.firstBucket; wall <= range.lastBucket; wall = addIntervals(wall, range.interval, 1)) out.push(wall);
  return out;
}

/** An instant as ISO 8601 with the zone's offset (`2024-03-01T00:00:00+01:00`), as PostHog's resolved_date_range. */
export function isoInZone(instant: Date, zone: string): string {
  const wall = wallOf(instant, zone);
  const offsetMinutes = Math.round((wall.getTime() - instant.getTime()) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${wallText(wall).replace(" ", "T")}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

// ---------------------------------------------------------------------------------------
// Labels

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const dayLabel = (d: Date) => `${d.getUTCDate()}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()}`;

/** PostHog's `days` entry of a bucket: the date, with the time for hourly charts. */
export function bucketDay(wall: Date, interval: Interval): string {
  const text = wallText(wall);
  return interval === "hour" ? text : text.slice(0, 10);
}

/**
 * PostHog's `labels` entry of a bucket (format_label_date): `1-Mar-2024`, `1-Mar 13:00`,
 * `Mar 2024`, and for weeks the days of the week inside the range: `3–9 Mar`, `28-Feb – 2-Mar`.
 */
export function bucketLabel(wall: Date, range: Pick<ResolvedDateRange, "interval" | "zone" | "dateFrom" | "dateTo">): string {
  switch (range.interval) {
    case "hour":
      return `${wall.getUTCDate()}-${MONTHS[wall.getUTCMonth()]} ${pad(wall.getUTCHours())}:00`;
    case "day":
      return dayLabel(wall);
    case "month":
      return `${MONTHS[wall.getUTCMonth()]} ${wall.getUTCFullYear()}`;
    case "week": {
      const day = (d: Date) => startOfInterval(d, "day").getTime();
      const fromDay = day(wallOf(range.dateFrom, range.zone));
      const toDay = day(wallOf(range.dateTo, range.zone));
      const start = new Date(Math.max(day(wall), fromDay));
      const end = new Date(Math.max(Math.min(day(wall) + 6 * DAY, toDay), start.getTime()));
      if (start.getTime() === end.getTime()) return dayLabel(start);
      if (start.getUTCFullYear() !== end.getUTCFullYear()) return `${dayLabel(start)} – ${dayLabel(end)}`;
      if (start.getUTCMonth() !== end.getUTCMonth()) {
        return `${start.getUTCDate()}-${MONTHS[start.getUTCMonth()]} – ${end.getUTCDate()}-${MONTHS[end.getUTCMonth()]}`;
      }
      return `${start.getUTCDate()}–${end.getUTCDate()} ${MONTHS[end.getUTCMonth()]}`;
    }
  }
}
