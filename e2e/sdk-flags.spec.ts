/**
 * Feature flags through the real SDKs, unmodified, against the built server on each
 * database: posthog-node (remote /flags, and local evaluation from /flags/definitions) and
 * posthog-js in Chromium (remote config, /flags) read the flags and payloads stored for the
 * project, and the `$feature_flag_called` events they send come back through ingestion and
 * the events API.
 */
import { expect, test } from "@playwright/test";
import { PostHog } from "posthog-node";
import { DATABASE_KINDS, createDeployment, waitFor, type Deployment } from "./support/burrow";
import { insertSdkFlags } from "./support/flags";
import { servePostHogJsPage } from "./support/site";

/** `$feature_flag_called` events read back through the events API. */
async function flagCalls(baseUrl: string, deployment: Deployment) {
  const response = await fetch(`${baseUrl}/api/projects/${deployment.projectId}/events/?event=%24feature_flag_called&limit=1000`, {
    headers: { authorization: `Bearer ${deployment.personalKey}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { results: Array<{ distinct_id: string; properties: Record<string, unknown> }> };
  return body.results;
}

/** A page on its own origin that loads posthog-js and shows the flags it got. */
async function servePage(key: string, apiHost: string) {
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Flags test page</title>
<style>body{font:16px system-ui;margin:2rem} dt{font-weight:600;margin-top:.75rem} code{background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}</style>
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(key)}, {
    api_host: ${JSON.stringify(apiHost)},
    opt_out_useragent_filter: true,
    autocapture: false,
    capture_pageview: false,
    disable_session_recording: true,
    request_batching: false,
    person_profiles: "always",
  });
  posthog.setPersonPropertiesForFlags({ email: "shopper@example.com" }, false);
  posthog.onFeatureFlags(function () {
    var out = {
      banner: posthog.getFeatureFlag("beta-banner"),
      bannerPayload: posthog.getFeatureFlagPayload("beta-banner"),
      checkout: posthog.getFeatureFlag("checkout"),
      checkoutPayload: posthog.getFeatureFlagPayload("checkout"),
      nobody: posthog.isFeatureEnabled("nobody"),
    };
    window.__flags = out;
    var list = document.getElementById("flags");
    list.innerHTML = "";
    Object.keys(out).forEach(function (name) {
      var dt = document.createElement("dt"); dt.textContent = name;
      var dd = document.createElement("dd"); var code = document.createElement("code");
      code.textContent = JSON.stringify(out[name]); dd.appendChild(code);
      list.appendChild(dt); list.appendChild(dd);
    });
  });
</script></head>
<body><h1>Flags from Burrow</h1><dl id="flags"><dt>loading…</dt></dl></body></html>`;
  const page = await servePostHogJsPage(html);
  return { url: `${page.origin}/shop`, close: page.close };
}

for (const kind of DATABASE_KINDS) {
  test.describe(`feature flags through the SDKs on the ${kind} database`, () => {
    test("posthog-node (remote and local) and posthog-js read flags and payloads; $feature_flag_called arrives", async ({ page }, testInfo) => {
      test.setTimeout(120_000);
      const deployment = await createDeployment(kind);
      await insertSdkFlags(deployment);
      const server = await deployment.start();
      const testPage = await servePage(deployment.projectKey, server.url);
      const remote = new PostHog(deployment.projectKey, { host: server.url, flushAt: 1, flushInterval: 0 });
      const local = new PostHog(deployment.projectKey, { host: server.url, personalApiKey: deployment.personalKey, featureFlagsPollingInterval: 600_000, flushAt: 1, flushInterval: 0 });
      try {
        // posthog-node, remote evaluation (/flags?v=2).
        const shopper = { personProperties: { email: "node@example.com" } };
        expect(await remote.getFeatureFlag("checkout", "node-user", shopper)).toBe("one-page");
        expect(await remote.getFeatureFlagPayload("checkout", "node-user", "one-page", shopper)).toEqual({ steps: 1 });
        expect(await remote.isFeatureEnabled("beta-banner", "node-user")).toBe(true);
        expect(await remote.getFeatureFlagPayload("beta-banner", "node-user")).toEqual({ text: "Welcome to the beta" });
        expect(await remote.getFeatureFlag("nobody", "node-user")).toBe(false);
        const all = await remote.getAllFlagsAndPayloads("node-user", shopper);
        expect(all.featureFlags).toEqual({ "beta-banner": true, checkout: "one-page", nobody: false });

        // posthog-node, local evaluation from /flags/definitions: the same answers, no /flags call.
        expect(await local.waitForLocalEvaluationReady(15_000)).toBe(true);
        const localAll = await local.getAllFlagsAndPayloads("node-user", { ...shopper, onlyEvaluateLocally: true });
        expect(localAll).toEqual(all);
        expect(await local.getFeatureFlag("checkout", "node-local", { personProperties: { email: "x@other.org" }, onlyEvaluateLocally: true })).toBe(false);

        // posthog-js in Chromium.
        await page.setViewportSize({ width: 390, height: 700 });
        await page.goto(testPage.url);
        const flags = await page.waitForFunction(() => (window as unknown as { __flags?: Record<string, unknown> }).__flags, undefined, { timeout: 20_000 });
        expect(await flags.jsonValue()).toEqual({
          banner: true,
          bannerPayload: { text: "Welcome to the beta" },
          checkout: "one-page",
          checkoutPayload: { steps: 1 },
          nobody: false,
        });
        await page.screenshot({ path: testInfo.outputPath(`flags-page-${kind}.png`), fullPage: true });
        const jsDistinctId = await page.evaluate(() => (window as unknown as { posthog: { get_distinct_id(): string } }).posthog.get_distinct_id());

        // The flag checks were reported as $feature_flag_called events, through ingestion.
        await remote.flush();
        await local.flush();
        const calls = await waitFor("the $feature_flag_called events", async () => {
          const found = await flagCalls(server.url, deployment);
          const fromJs = found.filter((event) => event.distinct_id === jsDistinctId);
          const fromNode = found.filter((event) => event.distinct_id === "node-user");
          // posthog-js may report its flag calls in more than one batch: wait for the one checked below.
          return fromJs.some((event) => event.properties.$feature_flag === "beta-banner") && fromNode.some((event) => event.properties.$feature_flag === "checkout") ? found : undefined;
        }, 30_000);
        const nodeCheckout = calls.find((event) => event.distinct_id === "node-user" && event.properties.$feature_flag === "checkout")!;
        expect(nodeCheckout.properties).toMatchObject({ $feature_flag_response: "one-page", $lib: "posthog-node" });
        const jsBanner = calls.find((event) => event.distinct_id === jsDistinctId && event.properties.$feature_flag === "beta-banner");
        expect(jsBanner?.properties).toMatchObject({ $feature_flag_response: true, $lib: "web" });
      } finally {
        await remote.shutdown();
        await local.shutdown();
        await page.close();
        await server.stop();
        await testPage.close();
        await deployment.dispose();
      }
    });
  });
}
