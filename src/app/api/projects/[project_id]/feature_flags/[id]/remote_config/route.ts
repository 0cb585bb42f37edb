import { handleRemoteConfigPayload } from "@/server/flags/remote-config-payload";
import { methodNotAllowed } from "@/server/rest/route";

export const dynamic = "force-dynamic";

/** `GET …/feature_flags/:id_or_key/remote_config?token=`: the flag's payload for server SDKs (`getRemoteConfigPayload`). */
export const GET = handleRemoteConfigPayload;
export { methodNotAllowed as POST, methodNotAllowed as PATCH, methodNotAllowed as PUT, methodNotAllowed as DELETE };
