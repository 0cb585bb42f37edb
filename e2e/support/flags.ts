/** Feature flags the SDK specs store for their project, and what each SDK must read from them. */
import type { Deployment } from "./burrow";

export const SDK_FLAGS = [
  { key: "beta-banner", filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: '{"text":"Welcome to the beta"}' } } },
  {
    key: "checkout",
    filters: {
      groups: [
        { properties: [{ key: "email", value: "@example.com", operator: "icontains", type: "person" }], rollout_percentage: 100, variant: "one-page" },
        { properties: [], rollout_percentage: 0 },
      ],
      multivariate: { variants: [{ key: "classic", rollout_percentage: 50 }, { key: "one-page", rollout_percentage: 50 }] },
      payloads: { "one-page": '{"steps":1}', classic: '{"steps":3}' },
    },
  },
  { key: "nobody", filters: { groups: [{ properties: [], rollout_percentage: 0 }] } },
];

/** Stores SDK_FLAGS (on the embedded database, before the server starts). */
export async function insertSdkFlags(deployment: Deployment): Promise<void> {
  await deployment.read(async (query) => {
    for (const flag of SDK_FLAGS) {
      await query(`INSERT INTO feature_flags (project_id, key, name, filters, updated_at) VALUES ($1, $2, $3, $4::jsonb, now())`, [deployment.projectId, flag.key, flag.key, JSON.stringify(flag.filters)]);
    }
  });
}
