import { describe, expect, it } from "vitest";
import { renderJson, renderText, type TemplateGlobals } from "./template";

const globals: TemplateGlobals = {
  event: { uuid: "0191e8d2-0000-7000-8000-000000000001", event: "$pageview", distinct_id: "u1", properties: { $current_url: "https://x.test/a", plan: "pro", n: 3, "odd key": "v" }, timestamp: "2026-11-28T00:00:00.000Z", elements_chain: "", url: "http://b/e" },
  person: { id: "p1", name: "ada@x.test", url: "http://b/p", properties: { email: "ada@x.test", nested: { a: 1 } } },
  project: { id: 7, name: "Shop", url: "http://b/project/7" },
  source: { name: "Hook", url: "http://b/d" },
};

describe("webhook templating", () => {
  it("substitutes PostHog's paths in text", () => {
    expect(renderText("{event.event} on {event.properties.$current_url} by {person.properties.email} in {project.name} ({project.id})", globals)).toBe(
      "$pageview on https://x.test/a by ada@x.test in Shop (7)",
    );
    expect(renderText("https://hooks.test/{event.properties.plan}?n={event.properties.n}", globals)).toBe("https://hooks.test/pro?n=3");
  });

  it("keeps a lone placeholder's type in a body, and reads bracketed keys", () => {
    expect(renderJson({ event: "{event}", person: "{person}", n: "{event.properties.n}", k: "{event.properties['odd key']}", nested: ["{person.properties.nested}"] }, globals)).toEqual({
      event: globals.event,
      person: globals.person,
      n: 3,
      k: "v",
      nested: [{ a: 1 }],
    });
  });

  it("reads a missing path as empty (null when alone), and never reaches outside the globals", () => {
    expect(renderText("[{event.properties.missing}]", globals)).toBe("[]");
    expect(renderJson({ x: "{person.properties.none}" }, globals)).toEqual({ x: null });
    expect(renderText("{constructor.name}{event.__proto__}{toString}", globals)).toBe("");
    expect(renderJson({ x: "{person.properties.email}" }, { ...globals, person: null })).toEqual({ x: null });
  });

  it("leaves text that is not a placeholder alone", () => {
    expect(renderText('{"a": 1} { not a path } {}', globals)).toBe('{"a": 1} { not a path } {}');
  });
});
