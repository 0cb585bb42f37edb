/**
 * Hostile text in every string parameter of the events API — quotes, `;`, `--` and
 * `/* *\/` comments, backslashes, dollar quotes, unicode, NUL — is data, never SQL: each
 * answer is a 400 or exactly the events (or values) an in-memory model expects, never a
 * 500, and the tables are unchanged afterwards. Events carrying the same strings are
 * stored first, so a correct answer is usually not empty. (Property filters:
 * injection-properties.int.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testStoresName } from "@/test-support/db";
import { compareCodePoints, fold, storableText, textOf } from "@/server/properties/coerce";
import { CORPUS, expectEvents, injectionFixture, type InjectionFixture } from "@/test-support/injection";

let fx: InjectionFixture;
let before: unknown;

beforeAll(async () => {
  fx = await injectionFixture();
  before = await fx.snapshot();
});

afterAll(async () => {
  await fx.close();
});

/** What `values/` should answer, computed from the stored events. */
function expectedValues(key: string, prefix: string | null, eventName: string | null): { name: unknown }[] {
  const counts = new Map<string, { value: unknown; count: number }>();
  for (const event of fx.stored) {
    if (eventName !== null && event.event !== eventName) continue;
    if (!Object.prototype.hasOwnProperty.call(event.properties, key)) continue;
    const raw = event.properties[key];
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (value === null) continue;
      const text = typeof value === "string" ? value : JSON.stringify(value);
      if (prefix !== null && !fold(text).startsWith(fold(prefix))) continue;
      const id = JSON.stringify(value);
      counts.set(id, { value, count: (counts.get(id)?.count ?? 0) + 1 });
    }
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || compareCodePoints(textOf(a.value) ?? "", textOf(b.value) ?? ""))
    .slice(0, 50)
    .map(({ value }) => ({ name: value }));
}

describe(`injection corpus in every string parameter (${testStoresName})`, () => {
  it("event and distinct_id: exactly the events stored under that text", async () => {
    for (const text of CORPUS) {
      const clean = storableText(text);
      const byEvent = fx.stored.filter((e) => e.event === clean);
      expect(byEvent.length, text).toBeGreaterThan(0);
      expectEvents(await fx.list({ event: text }), byEvent, `event=${JSON.stringify(text)}`);
      expectEvents(await fx.list({ distinct_id: text }), fx.stored.filter((e) => e.distinct_id === clean), `distinct_id=${JSON.stringify(text)}`);
      expectEvents(await fx.list({ event: text, distinct_id: text, format: "json" }), byEvent, `both=${JSON.stringify(text)}`);
    }
  });

  it("after, before, person_id, before_uuid, limit, offset, format, orderBy, select, where: 400 naming the parameter", async () => {
    for (const text of CORPUS) {
      for (const name of ["after", "before", "person_id", "limit", "offset", "format", "orderBy", "select", "where"]) {
        const answer = await fx.list({ [name]: text });
        expect(answer.status, `${name}=${JSON.stringify(text)}`).toBe(400);
        expect(answer.body).toMatchObject({ type: "validation_error", code: "invalid_input", attr: name });
      }
      const cursor = await fx.list({ before: "now", before_uuid: text });
      expect(cursor.body, `before_uuid=${JSON.stringify(text)}`).toMatchObject({ attr: "before_uuid" });
    }
  });

  it("values: hostile key, value and event_name give the expected values", async () => {
    for (const text of CORPUS) {
      const clean = storableText(text);
      const byKey = await fx.values({ key: text });
      expect(byKey.status, JSON.stringify(text)).toBe(200);
      expect(byKey.body).toEqual(expectedValues(clean, null, null));
      expect(byKey.body.length).toBeGreaterThan(0);
      const byPrefix = await fx.values({ key: "label", value: text });
      expect(byPrefix.status).toBe(200);
      expect(byPrefix.body, JSON.stringify(text)).toEqual(expectedValues("label", clean, null));
      const byEvent = await fx.values({ key: "label", event_name: text });
      expect(byEvent.body, JSON.stringify(text)).toEqual(expectedValues("label", null, clean));
      expect((await fx.values({ key: text, value: text, event_name: text })).body).toEqual(expectedValues(clean, clean, clean));
      expect((await fx.values({ key: text, format: text })).body).toMatchObject({ attr: "format" });
    }
  });

  it("event id: 400 Invalid UUID", async () => {
    for (const text of CORPUS) {
      expect(await fx.event(text), JSON.stringify(text)).toEqual({
        status: 400,
        body: { type: "validation_error", code: "invalid_input", detail: "Invalid UUID", attr: "id" },
      });
    }
  });

  it("CSV export with hostile filters", async () => {
    for (const text of CORPUS) {
      const answer = await fx.list({ format: "csv", event: text, properties: JSON.stringify([{ key: text, operator: "icontains", value: text }]) });
      expect(answer.status).toBe(200);
      expect(String(answer.body).split("\r\n").length, JSON.stringify(text)).toBeGreaterThanOrEqual(3); // header, the event(s), ""
    }
  });

  it("text longer than accepted is a 400, not a database error", async () => {
    const long = "x".repeat(10_001);
    for (const name of ["event", "distinct_id", "after", "before", "person_id"]) expect((await fx.list({ [name]: long })).body).toMatchObject({ attr: name });
    expect((await fx.list({ properties: JSON.stringify([{ key: long, value: 1 }]) })).body).toMatchObject({ attr: "properties" });
    expect((await fx.list({ properties: JSON.stringify([{ key: "a", value: long }]) })).body).toMatchObject({ attr: "properties" });
    expect((await fx.list({ properties: `[${"1,".repeat(60_000)}1]` })).body).toMatchObject({ attr: "properties" });
    expect((await fx.values({ key: long })).body).toMatchObject({ attr: "key" });
  });

  it("leaves every table as it was", async () => {
    expect(await fx.snapshot()).toEqual(before);
  });
});
