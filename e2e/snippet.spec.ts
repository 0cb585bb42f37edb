/**
 * PostHog's standard HTML snippet, as its docs give it, on a page of another origin with
 * `api_host` set to a running Burrow: the snippet loads `<api_host>/static/array.js` from
 * Burrow, posthog-js sends the `$pageview`, and Burrow stores it (read back through the events
 * API with a personal key). The page also lazy-loads an extension bundle from Burrow the way
 * posthog-js does, and `getEarlyAccessFeatures` calls back with [].
 */
import { expect, test } from "@playwright/test";
import { DATABASE_KINDS, createDeployment, waitFor } from "./support/burrow";
import { servePostHogJsPage, snippetPage } from "./support/site";

interface PostHogOnPage {
  __loaded?: boolean;
  version: string;
  get_distinct_id(): string;
  getEarlyAccessFeatures(callback: (features: unknown[]) => void, forceReload?: boolean): void;
}
type PageWindow = Window & { posthog: PostHogOnPage; __PosthogExtensions__?: { loadExternalDependency?: (instance: PostHogOnPage, name: string, done: (error?: unknown) => void) => void } };

for (const kind of DATABASE_KINDS) {
  test.describe(`PostHog's HTML snippet against Burrow on the ${kind} database`, () => {
    test("loads array.js from Burrow, and the $pageview it sends is stored; early access features call back with []", async ({ page }) => {
      test.setTimeout(90_000);
      const deployment = await createDeployment(kind);
      const server = await deployment.start();
      const site = await servePostHogJsPage(snippetPage(deployment.projectKey, server.url));
      const fromBurrow: string[] = [];
      page.on("response", (response) => {
        if (response.url().startsWith(server.url)) fromBurrow.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
      });
      try {
        await page.goto(`${site.origin}/shop`);
        await page.waitForFunction(() => (window as unknown as PageWindow).posthog.__loaded === true);
        expect(fromBurrow).toContain("GET /static/array.js 200");
        const distinctId = await page.evaluate(() => (window as unknown as PageWindow).posthog.get_distinct_id());

        // The stub queues calls made before array.js arrives; this one runs against the loaded SDK.
        const features = await page.evaluate(
          () => new Promise<unknown[]>((resolve) => (window as unknown as PageWindow).posthog.getEarlyAccessFeatures(resolve, true)),
        );
        expect(features).toEqual([]);
        expect(fromBurrow).toContain("GET /api/early_access_features/ 200");

        // posthog-js lazy-loads its extensions from <api_host>/static/<version>/<name>.js (this
        // version; /static/<name>.js?v=<version> is its fallback and older versions' path).
        const lazyLoad = await page.evaluate(
          () =>
            new Promise<string>((resolve) => {
              const w = window as unknown as PageWindow;
              const load = w.__PosthogExtensions__?.loadExternalDependency;
              if (!load) return resolve("no loader");
              load(w.posthog, "recorder", (error) => resolve(error ? `failed: ${String(error)}` : "loaded"));
            }),
        );
        expect(lazyLoad).toBe("loaded");
        expect(fromBurrow.filter((line) => /^GET \/static\/([^/]+\/)?recorder\.js 200$/.test(line))).toHaveLength(1);

        const stored = await waitFor("the $pageview in the events API", async () => {
          const response = await fetch(`${server.url}/api/projects/${deployment.projectId}/events/?event=%24pageview`, {
            headers: { authorization: `Bearer ${deployment.personalKey}` },
          });
          expect(response.status).toBe(200);
          const { results } = (await response.json()) as { results: Array<{ distinct_id: string; properties: Record<string, unknown> }> };
          return results.length > 0 ? results : undefined;
        });
        expect(stored).toHaveLength(1);
        expect(stored[0]!.distinct_id).toBe(distinctId);
        expect(stored[0]!.properties).toMatchObject({ $current_url: `${site.origin}/shop`, $lib: "web" });
      } finally {
        await site.close();
        expect(await server.stop()).toBe(0);
        await deployment.dispose();
      }
    });
  });
}
