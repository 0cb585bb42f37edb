// PostHog's environments are projects here: the same resource under both prefixes.
export { GET, PATCH, PUT, DELETE } from "../../projects/[project_id]/route";
export const dynamic = "force-dynamic";
