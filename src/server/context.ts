/**
 * The request context: who acts, on which project, with which database and scopes. The edge
 * builds it once per request (REST's `projectRoute`/`userRoute`, tRPC's procedures, tests'
 * `testContext`) and every management service takes it as its first argument, so a rule
 * reads the same whichever transport called it.
 */
import type { Database } from "@/server/db";

/** The signed-in or key-holding user a request acts for. */
export interface Actor {
  id: number;
  uuid: string;
  email: string;
  /** The project `@current` names; null until the user picks one. */
  currentProjectId: number | null;
}

/** The project a request acts on, and the actor's standing in it. */
export interface ProjectAccess {
  id: number;
  organizationId: string;
  name: string;
  /** The actor's organization membership level: 1 member, 8 admin, 15 owner. */
  membershipLevel: number;
}

/** A request outside any project (`/api/users/@me/`, organizations, new projects). */
export interface UserContext {
  db: Database;
  actor: Actor;
  /** A session acts with every scope (`*`); a personal API key with its own. */
  scopes: readonly string[];
  /** Fires when the caller went away: analytical reads it started are dropped or cancelled. */
  signal?: AbortSignal;
}

/** A request on one project: what every project-scoped service takes first. */
export interface Context extends UserContext {
  project: ProjectAccess;
}
