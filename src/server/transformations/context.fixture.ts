import type { bootstrap } from "@/server/accounts/service";
import type { Context } from "@/server/context";
import type { Database } from "@/server/db";

/** For tests: what the edge would hand the services for a bootstrapped owner on their project. */
export function testContext(db: Database, owner: Awaited<ReturnType<typeof bootstrap>>): Context {
  return {
    db,
    actor: { id: owner.user.id, uuid: owner.user.uuid, email: owner.user.email, currentProjectId: owner.project_id },
    project: { id: owner.project_id, organizationId: owner.organization_id, name: "Default project", membershipLevel: 15 },
    scopes: ["*"],
  };
}
