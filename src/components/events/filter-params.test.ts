/** The explorer's "Export CSV" link carries the same list parameters tRPC's events.list reads. */
import { describe, expect, it } from "vitest";
import { filterParams } from "@/server/events/contract";
import { csvExportHref } from "./filter-params";

describe("explorer filters as list parameters", () => {
  const filters = { event: "purchase", after: "-7d", properties: [{ key: "plan", operator: "exact" as const, value: "pro" }] };

  it("names them as the REST list does, leaving blank fields out", () => {
    expect(filterParams({ ...filters, distinctId: "  ", before: "" })).toEqual({
      event: "purchase",
      after: "-7d",
      properties: JSON.stringify([{ key: "plan", operator: "exact", value: "pro", type: "event" }]),
    });
  });

  it("builds the CSV link from the same parameters", () => {
    expect(new URLSearchParams(filterParams(filters)).toString()).toBe(
      "event=purchase&after=-7d&properties=" + encodeURIComponent(JSON.stringify([{ key: "plan", operator: "exact", value: "pro", type: "event" }])).replace(/%20/g, "+"),
    );
    expect(csvExportHref(7, filters)).toMatch(/^\/api\/projects\/7\/events\/\?format=csv&event=purchase&after=-7d&properties=/);
  });
});
