// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleRemoteConfig } from "@/server/http/sdk/flags";

export const dynamic = "force-dynamic";
export { handleRemoteConfig as GET, handleRemoteConfig as OPTIONS };
