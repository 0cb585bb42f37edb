// `npm start` answers this path on its fast path; this route serves it under `next dev`.
import { handleSurveys } from "@/server/http/sdk/product-lists";

export const dynamic = "force-dynamic";
export { handleSurveys as GET, handleSurveys as HEAD, handleSurveys as OPTIONS };
