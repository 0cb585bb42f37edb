// PostHog's environments are projects here: the same resource under both prefixes.
export { GET, POST, PATCH, PUT, DELETE } from "../../../../../projects/[project_id]/feature_flags/[id]/remote_config/route";
export const dynamic = "force-dynamic";
