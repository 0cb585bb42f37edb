// `npm start` answers these paths on its fast path; this route serves them under `next dev`.
import { asRouteHandler } from "@/server/http/raw";
import { rawStaticAsset } from "@/server/http/sdk/static-assets";

const handleStaticAsset = asRouteHandler(rawStaticAsset);

export const dynamic = "force-dynamic";
export { handleStaticAsset as GET, handleStaticAsset as HEAD, handleStaticAsset as OPTIONS };
