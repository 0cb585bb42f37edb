/**
 * What the browser specs share: a bootstrapped Burrow of a spec's own, served for the
 * whole describe block; full-page screenshots in the test's output; and a page of another
 * origin that loads the real posthog-js bundle.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { admin, freePort, migratedDataDir, startServer, type RunningServer } from "./server";

export interface Account {
  email: string;
  password: string;
}

/** A running, bootstrapped Burrow: read its fields inside tests (they are set in beforeAll). */
export interface BootstrappedSite {
  readonly url: string;
  readonly projectKey: string;
  /** The bootstrapped project's id and the owner's all-scopes personal API key, for the REST API. */
  readonly projectId: number;
  readonly personalKey: string;
}

/**
 * Registers beforeAll/afterAll hooks in the calling describe block: a fresh DATA_DIR
 * bootstrapped with `owner` (and `members` added to the owner's organization), and the built
 * server on a free port, whose SITE_URL (sign-in redirects, share links) names that port.
 */
export function useBootstrappedSite(
  owner: Account,
  { members = [], env: serverEnv }: { members?: readonly Account[]; /** More of the server's environment, read when it starts (after earlier beforeAll hooks). */ env?: () => Record<string, string> } = {},
): BootstrappedSite {
  let server: RunningServer | undefined;
  let dataDir: string | undefined;
  let projectKey: string | undefined;
  let projectId: number | undefined;
  let personalKey: string | undefined;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    dataDir = migratedDataDir();
    const env = { DATA_DIR: dataDir };
    const boot = admin(["bootstrap", "--email", owner.email, "--password", owner.password, "--json"], env);
    expect(boot.code, boot.stderr).toBe(0);
    const booted = JSON.parse(boot.stdout) as { organization_id: string; project_id: number; project_api_key: string; personal_api_key: string };
    projectKey = booted.project_api_key;
    projectId = booted.project_id;
    personalKey = booted.personal_api_key;
    for (const member of members) {
      const created = admin(["create-user", "--email", member.email, "--password", member.password, "--organization", booted.organization_id, "--json"], env);
      expect(created.code, created.stderr).toBe(0);
    }
    const port = await freePort();
    server = await startServer({ ...env, ...serverEnv?.(), PORT: String(port), SITE_URL: `http://127.0.0.1:${port}` });
  });

  test.afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`The site's ${what} is only known once beforeAll has run.`);
    return value;
  };
  return {
    get url() {
      return started(server, "server").url;
    },
    get projectKey() {
      return started(projectKey, "project key");
    },
    get projectId() {
      return started(projectId, "project id");
    },
    get personalKey() {
      return started(personalKey, "personal API key");
    },
  };
}

/** A screenshot `<name>.png` in the running test's output folder, of the whole page unless `fullPage` is false. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage });
}

/**
 * The page has no horizontal scroll: nothing wider than the viewport. Polled, because a
 * resize reaches some parts (charts sized by a ResizeObserver) a frame or a render later.
 */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

/**
 * PostHog's loader snippet (posthog-js README / "Install the snippet" docs), unchanged but for
 * the key and the options (`options`: more of posthog-js's init options, as JSON).
 */
export function snippetPage(projectKey: string, apiHost: string, body = "<h1>Snippet only</h1>", options: Record<string, unknown> = {}): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Snippet only</title>
<script>
    !function(t,e){var o,n,p,r;e.__SV||(window.posthog&&window.posthog.__loaded)||(window.posthog=e,e._i=[],e.init=function(i,s,a){function g(t,e){var o=e.split(".");2==o.length&&(t=t[o[0]],e=o[1]),t[e]=function(){t.push([e].concat(Array.prototype.slice.call(arguments,0)))}}(p=t.createElement("script")).type="text/javascript",p.crossOrigin="anonymous",p.async=!0,p.src=s.api_host.replace(".i.posthog.com","-assets.i.posthog.com")+"/static/array.js",(r=t.getElementsByTagName("script")[0]).parentNode.insertBefore(p,r);var u=e;for(void 0!==a?u=e[a]=[]:a="posthog",u.people=u.people||[],u.toString=function(t){var e="posthog";return"posthog"!==a&&(e+="."+a),t||(e+=" (stub)"),e},u.people.toString=function(){return u.toString(1)+".people (stub)"},o="init capture register register_once register_for_session unregister unregister_for_session getFeatureFlag getFeatureFlagPayload isFeatureEnabled reloadFeatureFlags updateEarlyAccessFeatureEnrollment getEarlyAccessFeatures on onFeatureFlags onSurveysLoaded onSessionId getSurveys getActiveMatchingSurveys renderSurvey canRenderSurvey canRenderSurveyAsync identify setPersonProperties group resetGroups setPersonPropertiesForFlags resetPersonPropertiesForFlags setGroupPropertiesForFlags resetGroupPropertiesForFlags reset get_distinct_id getGroups get_session_id get_session_replay_url alias set_config startSessionRecording stopSessionRecording sessionRecordingStarted captureException loadToolbar get_property getSessionProperty createPersonProfile opt_in_capturing opt_out_capturing has_opted_in_capturing has_opted_out_capturing clear_opt_in_out_capturing debug".split(" "),n=0;n<o.length;n++)g(u,o[n]);e._i.push([i,s,a])},e.__SV=1)}(document,window.posthog||[]);
    posthog.init(${JSON.stringify(projectKey)}, {
        api_host: ${JSON.stringify(apiHost)},
        person_profiles: 'identified_only',
        // Headless Chromium is flagged as a bot; posthog-js would drop its events.
        opt_out_useragent_filter: true,
        ...${JSON.stringify(options)},
    })
</script>
</head><body>${body}</body></html>`;
}

const POSTHOG_JS_BUNDLE = path.resolve(import.meta.dirname, "../../node_modules/posthog-js/dist/array.full.js");

/**
 * A page server of the test's own (another origin than Burrow's, so CORS applies): `html`
 * at /shop (any query), and the unmodified posthog-js bundle at /posthog.js.
 */
export async function servePostHogJsPage(html: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === "/posthog.js") {
      res.writeHead(200, { "content-type": "text/javascript" });
      fs.createReadStream(POSTHOG_JS_BUNDLE).pipe(res);
    } else if (req.url?.startsWith("/shop")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(html);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
