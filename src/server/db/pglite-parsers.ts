import pg from "pg";

const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

/**
 * How the SQL driver reads PGlite's timestamps. PGlite's own parser is `new Date(text)`, and
 * PostgreSQL's text form (`0001-01-01 00:00:00+00`) is not ISO 8601, so V8 reads it with its
 * legacy parser, which takes years 0–49 as 2000–2049 and 50–99 as 1950–1999: an event at
 * 0001-01-01 was listed at 2001-01-01. node-postgres' parser (postgres-date) reads every year
 * as written (and BC, and infinity), so both databases now give the same Date for a row.
 * Prisma's adapter for PGlite passes its own parsers per query and is not affected.
 */
export const pgliteTypeParsers = {
  [TIMESTAMP]: pg.types.getTypeParser(TIMESTAMP),
  [TIMESTAMPTZ]: pg.types.getTypeParser(TIMESTAMPTZ),
};
