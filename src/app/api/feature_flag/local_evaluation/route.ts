// Flag definitions for older server SDKs' local evaluation (posthog-node 5.x uses /flags/definitions).
import { handleLocalEvaluation } from "@/server/http/sdk/local-evaluation";
import { methodNotAllowed } from "@/server/http/rest/route";

export const dynamic = "force-dynamic";
export { handleLocalEvaluation as GET, methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as DELETE };
