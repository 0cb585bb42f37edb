-- The delivery worker claims each destination's oldest due rows, at most as many as its rate
-- limit lets it send now (src/server/destinations/store.ts claimOutbox).
CREATE INDEX "hog_function_outbox_hog_function_id_next_attempt_at_idx" ON "hog_function_outbox"("hog_function_id", "next_attempt_at");
