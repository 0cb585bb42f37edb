-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "enrich_events" BOOLEAN NOT NULL DEFAULT true;

-- CreateTable
CREATE TABLE "sessions" (
    "project_id" INTEGER NOT NULL,
    "session_id" TEXT NOT NULL,
    "distinct_id" TEXT NOT NULL,
    "person_id" UUID,
    "start_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "end_timestamp" TIMESTAMPTZ(3) NOT NULL,
    "last_view_timestamp" TIMESTAMPTZ(3),
    "pageview_count" INTEGER NOT NULL DEFAULT 0,
    "screen_count" INTEGER NOT NULL DEFAULT 0,
    "autocapture_count" INTEGER NOT NULL DEFAULT 0,
    "entry_timestamp" TIMESTAMPTZ(3),
    "entry_url" TEXT,
    "entry_pathname" TEXT,
    "entry_referring_domain" TEXT,
    "entry_utm_source" TEXT,
    "entry_utm_medium" TEXT,
    "entry_utm_campaign" TEXT,
    "entry_utm_term" TEXT,
    "entry_utm_content" TEXT,
    "exit_timestamp" TIMESTAMPTZ(3),
    "exit_url" TEXT,
    "exit_pathname" TEXT,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("project_id","session_id")
);

-- CreateIndex
CREATE INDEX "sessions_project_id_start_timestamp_idx" ON "sessions"("project_id", "start_timestamp");

-- CreateIndex
CREATE INDEX "sessions_project_id_person_id_idx" ON "sessions"("project_id", "person_id");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill: every stored event's session, as the event store's insert keeps them from now on (src/server/db/events/postgres-web.ts sessionsUpsert).
INSERT INTO sessions AS sessions (project_id, session_id, distinct_id, person_id, start_timestamp, end_timestamp, last_view_timestamp,
      pageview_count, screen_count, autocapture_count, entry_timestamp, entry_url, entry_referring_domain, entry_utm_source, entry_utm_medium, entry_utm_campaign, entry_utm_term, entry_utm_content, entry_pathname, exit_timestamp, exit_url, exit_pathname)
    SELECT r.project_id, r.properties->>'$session_id', min(r.distinct_id), (array_agg(r.person_id ORDER BY r.timestamp) FILTER (WHERE r.person_id IS NOT NULL))[1],
      min(r.timestamp), max(r.timestamp), max(r.timestamp) FILTER (WHERE r.event IN ('$pageview', '$screen')),
      count(*) FILTER (WHERE r.event = '$pageview'), count(*) FILTER (WHERE r.event = '$screen'), count(*) FILTER (WHERE r.event = '$autocapture'),
      min(r.timestamp) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL),
      (array_agg(NULLIF(r.properties->>'$current_url', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(NULLIF(r.properties->>'$referring_domain', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(NULLIF(r.properties->>'utm_source', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(NULLIF(r.properties->>'utm_medium', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(NULLIF(r.properties->>'utm_campaign', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(NULLIF(r.properties->>'utm_term', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(NULLIF(r.properties->>'utm_content', '') ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      (array_agg(COALESCE(NULLIF(r.properties->>'$pathname', ''), NULLIF(substring((r.properties->>'$current_url') from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^?#]*)'), '')) ORDER BY r.timestamp, r.uuid) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1],
      max(r.timestamp) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL), (array_agg(NULLIF(r.properties->>'$current_url', '') ORDER BY r.timestamp DESC, r.uuid DESC) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1], (array_agg(COALESCE(NULLIF(r.properties->>'$pathname', ''), NULLIF(substring((r.properties->>'$current_url') from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*([^?#]*)'), '')) ORDER BY r.timestamp DESC, r.uuid DESC) FILTER (WHERE NULLIF(r.properties->>'$current_url', '') IS NOT NULL))[1]
    FROM events r
    WHERE jsonb_typeof(r.properties->'$session_id') = 'string' AND r.properties->>'$session_id' <> '' AND length(r.properties->>'$session_id') <= 200
    GROUP BY r.project_id, r.properties->>'$session_id'
    ORDER BY r.project_id, r.properties->>'$session_id'
    ON CONFLICT (project_id, session_id) DO UPDATE SET
      person_id = COALESCE(sessions.person_id, EXCLUDED.person_id),
      start_timestamp = LEAST(sessions.start_timestamp, EXCLUDED.start_timestamp),
      end_timestamp = GREATEST(sessions.end_timestamp, EXCLUDED.end_timestamp),
      last_view_timestamp = GREATEST(sessions.last_view_timestamp, EXCLUDED.last_view_timestamp),
      pageview_count = sessions.pageview_count + EXCLUDED.pageview_count,
      screen_count = sessions.screen_count + EXCLUDED.screen_count,
      autocapture_count = sessions.autocapture_count + EXCLUDED.autocapture_count,
      entry_url = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_url ELSE sessions.entry_url END,
      entry_referring_domain = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_referring_domain ELSE sessions.entry_referring_domain END,
      entry_utm_source = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_utm_source ELSE sessions.entry_utm_source END,
      entry_utm_medium = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_utm_medium ELSE sessions.entry_utm_medium END,
      entry_utm_campaign = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_utm_campaign ELSE sessions.entry_utm_campaign END,
      entry_utm_term = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_utm_term ELSE sessions.entry_utm_term END,
      entry_utm_content = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_utm_content ELSE sessions.entry_utm_content END,
      entry_pathname = CASE WHEN (sessions.entry_timestamp IS NULL OR EXCLUDED.entry_timestamp < sessions.entry_timestamp) THEN EXCLUDED.entry_pathname ELSE sessions.entry_pathname END,
      entry_timestamp = LEAST(sessions.entry_timestamp, EXCLUDED.entry_timestamp),
      exit_url = CASE WHEN (sessions.exit_timestamp IS NULL OR EXCLUDED.exit_timestamp >= sessions.exit_timestamp) THEN EXCLUDED.exit_url ELSE sessions.exit_url END,
      exit_pathname = CASE WHEN (sessions.exit_timestamp IS NULL OR EXCLUDED.exit_timestamp >= sessions.exit_timestamp) THEN EXCLUDED.exit_pathname ELSE sessions.exit_pathname END,
      exit_timestamp = GREATEST(sessions.exit_timestamp, EXCLUDED.exit_timestamp)
;
