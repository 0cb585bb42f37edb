/**
 * Action steps as filter trees, run by the in-memory matcher (the same trees the SQL targets
 * compile; actions.int.test.ts runs them on the stores): selectors against elements chains as
 * posthog-js writes them, text/href/URL matching, and escaping.
 */
import { describe, expect, it } from "vitest";
import { propertyMatcher } from "@/server/properties/match";
import { regexSyntaxError } from "@/server/properties/regex";
import type { ActionStep } from "./contract";
import { actionTree, quoteRegex, selectorRegex } from "./matching";

const step = (fields: Partial<ActionStep>): ActionStep => ({
  event: "$autocapture", properties: null, selector: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null, url: null, url_matching: null, ...fields,
});
const matches = (fields: Partial<ActionStep>, chain: string, url = "https://a.test/", event = "$autocapture") =>
  propertyMatcher(actionTree([step(fields)]))({ event: { $current_url: url }, metadata: { event, elements_chain: chain, distinct_id: "d" } });

const CHAIN = 'button.btn.btn-primary:attr__data-attr="buy"attr_id="go"nth-child="2"nth-of-type="1"text="Buy now";div.card.wide:nth-child="1"nth-of-type="1";section:nth-child="1"nth-of-type="1";body:nth-child="1"nth-of-type="1"';

describe("selectors on the elements chain", () => {
  it.each([
    ["button", true],
    ["button.btn-primary", true],
    ["button.btn", true],
    [".btn-primary.btn", true],
    ["button.btn-prim", false],
    ["a", false],
    ["#go", true],
    ["button#stop", false],
    ['[data-attr="buy"]', true],
    ["[data-attr=buy]", true],
    ['[data-attr="sell"]', false],
    ["button:nth-child(2)", true],
    ["div.card > button", true],
    ["section > button", false],
    ["section button", true],
    ["body section div button.btn", true],
    ["div.wide button", true],
    ["span button", false],
    ["div > section > button", false],
    ["*", true],
  ])("%s → %s", (selector, expected) => {
    expect(matches({ selector }, CHAIN)).toBe(expected);
    expect(regexSyntaxError(selectorRegex(selector))).toBeNull();
  });

  it.each(["div::before", "a[", "> a", "a >", "a > > b", "[x]", ":hover"])("refuses %s", (selector) => {
    expect(() => selectorRegex(selector)).toThrow(/Invalid selector/);
  });

  it("does not let a class match inside another element's text", () => {
    expect(matches({ selector: ".card" }, 'span:text="x.card"')).toBe(false);
  });
});

describe("text, href, tag and URL", () => {
  it.each<[Partial<ActionStep>, boolean]>([
    [{ text: "Buy now", text_matching: "exact" }, true],
    [{ text: "buy now", text_matching: "exact" }, false],
    [{ text: "BUY", text_matching: "contains" }, true],
    [{ text: "Buy.*", text_matching: "regex" }, true],
    [{ text: "^Buy", text_matching: "regex" }, false],
    [{ text: "Buy" }, false],
    [{ tag_name: "button" }, true],
    [{ tag_name: "div" }, true],
    [{ tag_name: "butto" }, false],
    [{ href: "/x" }, false],
  ])("%j → %s", (fields, expected) => expect(matches(fields, CHAIN)).toBe(expected));

  it("reads quotes as the chain escapes them", () => {
    expect(matches({ text: 'Say "hi"', text_matching: "exact" }, 'a:text="Say \\"hi\\""')).toBe(true);
    expect(matches({ text: '"hi', text_matching: "contains" }, 'a:text="Say \\"hi\\""')).toBe(true);
  });

  it("matches URLs case-sensitively: contains by default, exact, regex; the element fields only for $autocapture", () => {
    expect(matches({ event: "$pageview", url: "/Pricing" }, "", "https://a.test/Pricing?x", "$pageview")).toBe(true);
    expect(matches({ event: "$pageview", url: "/pricing" }, "", "https://a.test/Pricing", "$pageview")).toBe(false);
    expect(matches({ event: "$pageview", url: "https://a.test/p", url_matching: "exact" }, "", "https://a.test/p?x", "$pageview")).toBe(false);
    expect(matches({ event: "$pageview", url: "a.test/p", url_matching: "exact" }, "", "https://a.test/p", "$pageview")).toBe(false);
    expect(matches({ event: "$pageview", url: "p$", url_matching: "regex" }, "", "https://a.test/p", "$pageview")).toBe(true);
    // `.` and `?` in a contains URL are themselves.
    expect(matches({ event: "$pageview", url: "a.test/p?x" }, "", "https://aXtest/p?x", "$pageview")).toBe(false);
    expect(matches({ event: "$pageview", selector: "button" }, "", "https://a.test/", "$pageview")).toBe(true);
  });

  it("ORs steps, matches the event name exactly, and an action without steps matches nothing", () => {
    const tree = actionTree([step({ event: "signed_up" }), step({ event: "$pageview" })]);
    const run = (event: string) => propertyMatcher(tree)({ event: {}, metadata: { event, elements_chain: "", distinct_id: "d" } });
    expect([run("signed_up"), run("$pageview"), run("Signed_up"), run("signed_up_2")]).toEqual([true, true, false, false]);
    expect(propertyMatcher(actionTree([]))({ event: {}, metadata: { event: "x", elements_chain: "", distinct_id: "d" } })).toBe(false);
  });

  it("quotes every RE2 metacharacter", () => {
    const text = "a.b*c+d?e(f)g[h]i{j}k|l^m$n\\o";
    expect(regexSyntaxError(`^${quoteRegex(text)}$`)).toBeNull();
  });
});
