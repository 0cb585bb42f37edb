/**
 * The real posthog-python SDK, unmodified (e2e/sdk-python/requirements.txt, driven by
 * e2e/sdk-python/drive.py), pointed at a running Burrow on each database: its batches (plain
 * and gzip'd) are stored once per event with the persons, alias merge, group and historical
 * marks the calls ask for, and its remote and local flag evaluation read the stored flags.
 */
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { DATABASE_KINDS, createDeployment, personOf, storedEvents, waitFor } from "./support/burrow";
import { insertSdkFlags } from "./support/flags";
import { posthogPython, runPython } from "./support/python";

interface Driven {
  user: string;
  anon: string;
  order_uuid: string;
  sent: Record<string, string | string[]>;
  flags: Record<string, unknown>;
  errors: string[];
}

test.beforeAll(() => {
  // Made (or found) before any server starts: pip may take a few seconds the first time.
  posthogPython();
});

for (const kind of DATABASE_KINDS) {
  test.describe(`posthog-python against Burrow on the ${kind} database`, () => {
    test("capture, set, alias, group_identify, a historical migration and flags, remote and local", async () => {
      test.setTimeout(120_000);
      const deployment = await createDeployment(kind);
      try {
        await insertSdkFlags(deployment);
        const server = await deployment.start();
        const startedAt = Date.now();
        let driven: Driven;
        try {
          driven = await runPython<Driven>("e2e/sdk-python/drive.py", {
            host: server.url,
            key: deployment.projectKey,
            personal_key: deployment.personalKey,
            run: randomBytes(3).toString("hex"),
          });
          // The SDK sends $feature_flag_called from its own thread: wait until they are stored.
          await waitFor("posthog-python's $feature_flag_called events", async () => {
            const response = await fetch(`${server.url}/api/projects/${deployment.projectId}/events/?event=%24feature_flag_called&limit=100`, {
              headers: { authorization: `Bearer ${deployment.personalKey}` },
            });
            const body = (await response.json()) as { results: unknown[] };
            return body.results.length >= 3 ? body.results : undefined;
          });
        } finally {
          expect(await server.stop()).toBe(0);
        }
        const finishedAt = Date.now();
        const { user, anon, sent, flags, errors } = driven;
        expect(errors).toEqual([]);

        // Flags: the same answers as posthog-node and posthog-js get (sdk-flags.spec.ts), remote and local.
        expect(flags.checkout).toBe("one-page");
        expect(flags.checkout_payload).toEqual({ steps: 1 });
        expect(flags.banner).toBe(true);
        expect(flags.banner_payload).toEqual({ text: "Welcome to the beta" });
        expect(flags.nobody).toBe(false);
        expect(flags.all).toEqual({ "beta-banner": true, checkout: "one-page", nobody: false });
        expect(flags.local_definitions).toBe(3);
        expect(flags.local_all).toEqual(flags.all);
        // Locally the SDK hands back the payloads as the definitions hold them: JSON text, as PostHog's.
        expect(flags.local_all_and_payloads).toEqual({
          featureFlags: { "beta-banner": true, checkout: "one-page", nobody: false },
          featureFlagPayloads: { "beta-banner": '{"text":"Welcome to the beta"}', checkout: '{"steps":1}' },
        });
        expect(flags.local_other).toBe(false);

        const stored = await deployment.read(async (query) => ({
          events: await storedEvents(query, deployment.projectId),
          duplicates: await query(`SELECT uuid FROM events GROUP BY uuid HAVING count(*) > 1`),
          person: await personOf(query, deployment.projectId, user),
          anonPerson: await personOf(query, deployment.projectId, anon),
          groups: await query(`SELECT group_type_index, group_key, group_properties FROM groups WHERE project_id = $1`, [deployment.projectId]),
        }));
        expect(stored.duplicates).toEqual([]);
        const byUuid = new Map(stored.events.map((event) => [event.uuid, event]));
        const one = (name: string) => {
          const uuid = sent[name] as string;
          const event = byUuid.get(uuid.toLowerCase());
          expect(event, `${name} (${uuid}) is stored`).toBeDefined();
          expect(event!.event).toBe(name);
          expect(event!.properties).toMatchObject({ $lib: "posthog-python", $lib_version: "7.53.0" });
          expect(event!.historical_migration).toBe(false);
          expect(event!.timestamp.getTime()).toBeGreaterThanOrEqual(startedAt - 1_000);
          expect(event!.timestamp.getTime()).toBeLessThanOrEqual(finishedAt + 1_000);
          return event!;
        };

        expect(one("viewed pricing").properties).toMatchObject({ plan: "free" });
        const order = one("order placed");
        expect(order.uuid).toBe(driven.order_uuid);
        expect(order.properties).toMatchObject({ amount: 42.5, currency: "EUR", items: ["a", "b"], shipping: { express: true, country: "DE" }, note: "grüße ✓" });

        // set: the person has the properties; alias: the anonymous id joined that person.
        expect(one("$set").properties.$set).toEqual({ email: `${user}@example.com`, plan: "pro" });
        expect(stored.person!.properties).toMatchObject({ email: `${user}@example.com`, plan: "pro" });
        // posthog-python sends alias(previous_id, distinct_id) from the previous id (posthog-node the other way round).
        const alias = one("$create_alias");
        expect(alias.distinct_id).toBe(anon);
        expect(alias.properties).toMatchObject({ distinct_id: anon, alias: user });
        expect(stored.anonPerson?.uuid).toBe(stored.person!.uuid);
        expect(stored.person!.distinct_ids.sort()).toEqual([anon, user].sort());
        expect(one("viewed pricing").person_id).toBe(stored.person!.uuid);

        // group_identify: the group and its properties; the grouped event carries $groups.
        expect(one("$groupidentify").properties).toMatchObject({ $group_type: "company", $group_key: "acme", $group_set: { name: "Acme Inc", employees: 50 } });
        expect(stored.groups).toEqual([{ group_type_index: 0, group_key: "acme", group_properties: { name: "Acme Inc", employees: 50 } }]);
        expect(one("report exported").properties.$groups).toEqual({ company: "acme" });

        // The gzip'd historical migration: marked, at the times given, the user's person.
        const imported = (sent["imported purchase"] as string[]).map((uuid) => byUuid.get(uuid.toLowerCase())!);
        expect(imported.map((event) => event?.timestamp.toISOString())).toEqual(["2021-03-04T05:06:07.000Z", "2022-11-12T13:14:15.123Z"]);
        for (const [i, event] of imported.entries()) {
          expect(event.historical_migration).toBe(true);
          expect(event.properties.index).toBe(i);
          expect(event.person_id).toBe(stored.person!.uuid);
        }

        // Every flag call came back as $feature_flag_called, with the answer it got.
        const calls = stored.events.filter((event) => event.event === "$feature_flag_called" && event.distinct_id === "py-flags");
        const answers = Object.fromEntries(calls.map((event) => [event.properties.$feature_flag, event.properties.$feature_flag_response]));
        expect(answers).toMatchObject({ checkout: "one-page", "beta-banner": true, nobody: false });
      } finally {
        await deployment.dispose();
      }
    });
  });
}
