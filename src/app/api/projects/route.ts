// `GET /api/projects/`: the handler and its documentation are in the account routes' table.
import { accountRoutes } from "@/server/http/rest/resources/accounts";

export const dynamic = "force-dynamic";

export const { GET, POST } = accountRoutes.projects.methods;
