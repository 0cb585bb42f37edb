import { describe, expect, it } from "vitest";
import { htmlSnippet, posthogJsSnippet, posthogNodeSnippet } from "./snippets";

describe("the set-up snippets", () => {
  it("point PostHog's SDKs at this server with the project key", () => {
    const html = htmlSnippet("phc_abc", "https://burrow.example");
    expect(html).toMatch(/^<script>\n/);
    expect(html).toContain(`s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js"`);
    expect(html).toContain("posthog.init('phc_abc', {\n        api_host: 'https://burrow.example',");
    expect(html.endsWith("</script>")).toBe(true);
    expect(posthogJsSnippet("phc_abc", "https://burrow.example")).toContain("api_host: 'https://burrow.example'");
    expect(posthogNodeSnippet("phc_abc", "https://burrow.example")).toContain("new PostHog('phc_abc', { host: 'https://burrow.example' })");
  });

  it("cannot be broken out of by what they quote", () => {
    const html = htmlSnippet("k'</script><script>alert(1)//", "https://x");
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).toContain("'k\\'\\x3c/script>\\x3cscript>alert(1)//'");
  });
});
