// PostHog serves the configs under both prefixes; environments are projects here.
export { GET, POST, PATCH, PUT, DELETE } from "../../../environments/[project_id]/pipeline_transformation_configs/route";
export const dynamic = "force-dynamic";
