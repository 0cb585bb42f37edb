// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleEarlyAccessFeatures } from "@/server/http/sdk/product-lists";

export const dynamic = "force-dynamic";
export { handleEarlyAccessFeatures as GET, handleEarlyAccessFeatures as HEAD, handleEarlyAccessFeatures as OPTIONS };
