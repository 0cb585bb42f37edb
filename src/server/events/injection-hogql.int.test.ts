/**
 * Hostile text in `select` and `where`: as quoted literals and property names it is data
 * (exactly the events carrying it are found); raw, it is a 400 (or a correct answer) —
 * never a 500, and the tables are unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testStoresName } from "@/test-support/db";
import { storableText } from "@/server/properties/coerce";
import { CORPUS, expectEvents, expectHandled, injectionFixture, type InjectionFixture } from "@/test-support/injection";

let fx: InjectionFixture;
let before: unknown;

beforeAll(async () => {
  fx = await injectionFixture();
  before = await fx.snapshot();
});

afterAll(async () => {
  await fx.close();
});

/** A HogQL string literal for `text`. */
const str = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
/** A backtick-quoted HogQL name for `text`. */
const name = (text: string) => `\`${text.replace(/\\/g, "\\\\").replace(/`/g, "``")}\``;

const ATTACKS = [
  "') or 1=1 --",
  "' or 1=1 --",
  "event = '' or 1=1 --",
  "event = 'a'; DROP TABLE events",
  "event = 'a' /* x */",
  "event = 'a' -- x",
  "1=1; select pg_sleep(1)",
  "pg_sleep(1) = 1",
  "event = 'a' union select uuid from events",
  "event in (select event from events)",
  "(select 1) = 1",
  "event = $1",
  "$1",
  "event = $$x$$",
  "event = E'\\x27'",
  "event = 'a\\'",
  "event::text = 'a'",
  "properties->>'x' = 'a'",
  "e.event = 'a'",
  "events.event = 'a'",
  "version() = 'a'",
  "toDate(timestamp)::text = 'a'",
  "current_user = 'a'",
  "event = 'a' and (select count(*) from users) > 0",
  "event = ‘a’",
  "event\u0000= 'a'",
  "count() from events",
];

// Five listings per corpus entry: ~15 s alone on embedded ClickHouse, twice that beside the other test files.
describe(`injection corpus in select and where (${testStoresName})`, { timeout: 90_000 }, () => {
  it("quoted in where: exactly the events carrying the text", async () => {
    for (const text of CORPUS) {
      const clean = storableText(text);
      const byEvent = fx.stored.filter((e) => e.event === clean);
      expect(byEvent.length).toBeGreaterThan(0);
      const label = JSON.stringify(text);
      const answer = await fx.list({ where: JSON.stringify([`event = ${str(text)}`]) });
      expect(answer.status, label).toBe(200);
      expectEvents(answer, byEvent, `event = ${label}`);
      const byProperty = fx.stored.filter((e) => e.properties[clean] === clean);
      const property = await fx.list({ where: JSON.stringify([`properties.${name(text)} = ${str(text)}`, `distinct_id in (${str(text)}, 'x')`]) });
      expect(property.status, label).toBe(200);
      expectEvents(property, byProperty, `properties.${label}`);
      expectEvents(await fx.list({ where: JSON.stringify([`properties.label like ${str(text.replace(/[\\%_]/g, "\\$&"))}`]) }), byEvent, `like ${label}`);
      expectEvents(await fx.list({ where: JSON.stringify([`person.properties.${name(text)} = ${str(text)}`]) }), fx.stored.filter((e) => e.person?.[clean] === clean), `person ${label}`);
      expectEvents(await fx.list({ where: JSON.stringify([`person.properties.${name(text)} = properties.${name(text)}`, `event = ${str(text)}`]) }), byEvent, `person and event ${label}`);
    }
  });

  it("quoted in select: the stored values come back as they are", async () => {
    for (const text of CORPUS) {
      const clean = storableText(text);
      const answer = await fx.list({ select: JSON.stringify([`properties.${name(text)}`, "event", `${str(text)} as x`, "count()"]), where: JSON.stringify([`event = ${str(text)}`]) });
      expect(answer.status, JSON.stringify(text)).toBe(200);
      expect(answer.body.results, JSON.stringify(text)).toEqual([[clean, clean, clean, fx.stored.filter((e) => e.event === clean).length]]);
      const person = await fx.list({ select: JSON.stringify([`person.properties.${name(text)}`, "count()"]), where: JSON.stringify([`event = ${str(text)}`]) });
      expect(person.body.results, JSON.stringify(text)).toEqual([[clean, fx.stored.filter((e) => e.event === clean).length]]);
      const csv = await fx.list({ select: JSON.stringify([`properties.${name(text)}`]), where: JSON.stringify([`event = ${str(text)}`]), format: "csv" });
      expect(csv.status).toBe(200);
    }
  });

  it("raw in select and where, and spliced into expressions: a 400 or a correct answer, never a 500", async () => {
    for (const text of [...CORPUS, ...ATTACKS]) {
      const label = JSON.stringify(text);
      const spliced = [`event = ${text}`, `event = '${text}'`, `properties.${text} = 1`, `properties.\`${text}\` is null`, `${text} = event`];
      const requests: [string, string[]][] = [
        ["where", [text, ...spliced]],
        ["select", [text, spliced[1]!, spliced[3]!]],
      ];
      for (const [param, expressions] of requests) {
        for (const expression of expressions) {
          const answer = await fx.list({ [param]: JSON.stringify([expression]) });
          expectHandled(answer, `${param} ${label} in ${JSON.stringify(expression)}`);
          if (answer.status === 400) expect(answer.body.attr).toBe(param);
        }
      }
      expectHandled(await fx.list({ where: text, select: text }), label);
    }
    for (const attack of ATTACKS) {
      const answer = await fx.list({ where: JSON.stringify([attack]) });
      expect(answer.status, attack).toBe(400);
      expect(answer.body.detail, attack).toMatch(/^where\[0\]: .* at position [0-9]+\.$/s);
    }
    // Tautologies are valid conditions: this project's events, no others.
    for (const always of ["properties.`x` = 'a' or true", "event = 'a\u0000' or 1=1", "'1' = '1' or event = ''"]) {
      expectEvents(await fx.list({ where: JSON.stringify([always]) }), fx.stored, always);
    }
    // An escaped quote stays inside the literal: a valid filter matching nothing.
    expect(await fx.list({ where: JSON.stringify(["event = 'x\\' or 1=1 --'"]) })).toMatchObject({ status: 200, body: { results: [] } });
  });

  it("leaves every table as it was", async () => {
    expect(await fx.snapshot()).toEqual(before);
  });
});
