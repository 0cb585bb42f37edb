
-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "first_name" TEXT NOT NULL DEFAULT '',
    "last_name" TEXT NOT NULL DEFAULT '',
    "distinct_id" TEXT NOT NULL,
    "is_email_verified" BOOLEAN NOT NULL DEFAULT false,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "hedgehog_config" JSONB,
    "current_project_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "last_login_at" TIMESTAMPTZ(3),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization_memberships" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "level" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "organization_memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization_invites" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "target_email" TEXT NOT NULL,
    "level" INTEGER NOT NULL DEFAULT 1,
    "token_hash" TEXT NOT NULL,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),

    CONSTRAINT "organization_invites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "api_token" TEXT NOT NULL,
    "secret_api_token_hash" TEXT,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "anonymize_ips" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "personal_api_keys" (
    "id" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "label" TEXT NOT NULL DEFAULT '',
    "secure_value" TEXT NOT NULL,
    "mask_value" TEXT NOT NULL,
    "scopes" TEXT[],
    "scoped_projects" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "scoped_organizations" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "personal_api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tags" (
    "id" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,

    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tagged_items" (
    "id" UUID NOT NULL,
    "tag_id" UUID NOT NULL,
    "dashboard_id" INTEGER,
    "insight_id" INTEGER,
    "feature_flag_id" INTEGER,

    CONSTRAINT "tagged_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboards" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400),
    "description" TEXT NOT NULL DEFAULT '',
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "creation_mode" TEXT NOT NULL DEFAULT 'default',
    "restriction_level" INTEGER NOT NULL DEFAULT 21,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "variables" JSONB NOT NULL DEFAULT '{}',
    "breakdown_colors" JSONB,
    "data_color_theme_id" INTEGER,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "last_accessed_at" TIMESTAMPTZ(3),
    "last_refresh" TIMESTAMPTZ(3),

    CONSTRAINT "dashboards_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "insights" (
    "id" SERIAL NOT NULL,
    "short_id" TEXT NOT NULL,
    "project_id" INTEGER NOT NULL,
    "name" VARCHAR(400),
    "derived_name" VARCHAR(400),
    "description" TEXT NOT NULL DEFAULT '',
    "query" JSONB,
    "filters" JSONB NOT NULL DEFAULT '{}',
    "favorited" BOOLEAN NOT NULL DEFAULT false,
    "saved" BOOLEAN NOT NULL DEFAULT false,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "created_by_id" INTEGER,
    "last_modified_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_refresh" TIMESTAMPTZ(3),

    CONSTRAINT "insights_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboard_texts" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "body" TEXT NOT NULL DEFAULT '',
    "created_by_id" INTEGER,
    "last_modified_by_id" INTEGER,
    "last_modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dashboard_texts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboard_tiles" (
    "id" SERIAL NOT NULL,
    "dashboard_id" INTEGER NOT NULL,
    "insight_id" INTEGER,
    "text_id" INTEGER,
    "layouts" JSONB NOT NULL DEFAULT '{}',
    "color" TEXT,
    "filters_overrides" JSONB,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_refresh" TIMESTAMPTZ(3),

    CONSTRAINT "dashboard_tiles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dashboard_collaborators" (
    "id" UUID NOT NULL,
    "dashboard_id" INTEGER NOT NULL,
    "user_id" INTEGER NOT NULL,
    "level" INTEGER NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dashboard_collaborators_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sharing_configurations" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "dashboard_id" INTEGER,
    "insight_id" INTEGER,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "access_token" TEXT NOT NULL,
    "settings" JSONB,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),

    CONSTRAINT "sharing_configurations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "plugins" (
    "id" SERIAL NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "plugin_type" TEXT NOT NULL DEFAULT 'builtin',
    "icon_url" TEXT,
    "config_schema" JSONB NOT NULL DEFAULT '[]',
    "capabilities" JSONB NOT NULL DEFAULT '{}',
    "organization_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "plugins_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "plugin_configs" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "plugin_id" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "order" INTEGER NOT NULL DEFAULT 0,
    "config" JSONB NOT NULL DEFAULT '{}',
    "name" TEXT,
    "description" TEXT,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "plugin_configs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "plugin_config_metrics" (
    "id" SERIAL NOT NULL,
    "plugin_config_id" INTEGER NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "events_seen" INTEGER NOT NULL DEFAULT 0,
    "events_dropped" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "plugin_config_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "uuid" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "distinct_id" TEXT NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "timestamp" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "person_id" UUID,
    "elements_chain" TEXT NOT NULL DEFAULT '',
    "historical_migration" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "events_pkey" PRIMARY KEY ("project_id","uuid")
);

-- CreateTable
CREATE TABLE "persons" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "project_id" INTEGER NOT NULL,
    "properties" JSONB NOT NULL DEFAULT '{}',
    "is_identified" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "persons_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "person_distinct_ids" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "person_id" INTEGER NOT NULL,
    "distinct_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "person_distinct_ids_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "group_type_mappings" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "group_type" TEXT NOT NULL,
    "group_type_index" INTEGER NOT NULL,
    "name_singular" TEXT,
    "name_plural" TEXT,

    CONSTRAINT "group_type_mappings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "groups" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "group_type_index" INTEGER NOT NULL,
    "group_key" TEXT NOT NULL,
    "group_properties" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "feature_flags" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "key" VARCHAR(400) NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "filters" JSONB NOT NULL DEFAULT '{}',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "deleted" BOOLEAN NOT NULL DEFAULT false,
    "ensure_experience_continuity" BOOLEAN NOT NULL DEFAULT false,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "feature_flags_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "feature_flag_hash_key_overrides" (
    "id" SERIAL NOT NULL,
    "project_id" INTEGER NOT NULL,
    "person_id" INTEGER NOT NULL,
    "feature_flag_key" TEXT NOT NULL,
    "hash_key" TEXT NOT NULL,

    CONSTRAINT "feature_flag_hash_key_overrides_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activity_logs" (
    "id" UUID NOT NULL,
    "project_id" INTEGER,
    "organization_id" UUID,
    "user_id" INTEGER,
    "scope" TEXT NOT NULL,
    "item_id" TEXT NOT NULL,
    "activity" TEXT NOT NULL,
    "detail" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "activity_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_uuid_key" ON "users"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "users_distinct_id_key" ON "users"("distinct_id");

-- CreateIndex
CREATE INDEX "organization_memberships_user_id_idx" ON "organization_memberships"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "organization_memberships_organization_id_user_id_key" ON "organization_memberships"("organization_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "organization_invites_token_hash_key" ON "organization_invites"("token_hash");

-- CreateIndex
CREATE INDEX "organization_invites_organization_id_idx" ON "organization_invites"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "projects_uuid_key" ON "projects"("uuid");

-- CreateIndex
CREATE UNIQUE INDEX "projects_api_token_key" ON "projects"("api_token");

-- CreateIndex
CREATE UNIQUE INDEX "projects_secret_api_token_hash_key" ON "projects"("secret_api_token_hash");

-- CreateIndex
CREATE INDEX "projects_organization_id_idx" ON "projects"("organization_id");

-- CreateIndex
CREATE UNIQUE INDEX "personal_api_keys_secure_value_key" ON "personal_api_keys"("secure_value");

-- CreateIndex
CREATE INDEX "personal_api_keys_user_id_idx" ON "personal_api_keys"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "tags_project_id_name_key" ON "tags"("project_id", "name");

-- CreateIndex
CREATE INDEX "tagged_items_dashboard_id_idx" ON "tagged_items"("dashboard_id");

-- CreateIndex
CREATE INDEX "tagged_items_insight_id_idx" ON "tagged_items"("insight_id");

-- CreateIndex
CREATE INDEX "tagged_items_feature_flag_id_idx" ON "tagged_items"("feature_flag_id");

-- CreateIndex
CREATE UNIQUE INDEX "tagged_items_tag_id_dashboard_id_key" ON "tagged_items"("tag_id", "dashboard_id");

-- CreateIndex
CREATE UNIQUE INDEX "tagged_items_tag_id_insight_id_key" ON "tagged_items"("tag_id", "insight_id");

-- CreateIndex
CREATE UNIQUE INDEX "tagged_items_tag_id_feature_flag_id_key" ON "tagged_items"("tag_id", "feature_flag_id");

-- CreateIndex
CREATE INDEX "dashboards_project_id_deleted_pinned_name_idx" ON "dashboards"("project_id", "deleted", "pinned", "name");

-- CreateIndex
CREATE UNIQUE INDEX "insights_short_id_key" ON "insights"("short_id");

-- CreateIndex
CREATE INDEX "insights_project_id_deleted_idx" ON "insights"("project_id", "deleted");

-- CreateIndex
CREATE INDEX "dashboard_tiles_dashboard_id_deleted_idx" ON "dashboard_tiles"("dashboard_id", "deleted");

-- CreateIndex
CREATE INDEX "dashboard_tiles_insight_id_idx" ON "dashboard_tiles"("insight_id");

-- CreateIndex
CREATE UNIQUE INDEX "dashboard_collaborators_dashboard_id_user_id_key" ON "dashboard_collaborators"("dashboard_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "sharing_configurations_access_token_key" ON "sharing_configurations"("access_token");

-- CreateIndex
CREATE INDEX "sharing_configurations_dashboard_id_idx" ON "sharing_configurations"("dashboard_id");

-- CreateIndex
CREATE INDEX "sharing_configurations_insight_id_idx" ON "sharing_configurations"("insight_id");

-- CreateIndex
CREATE UNIQUE INDEX "plugins_key_key" ON "plugins"("key");

-- CreateIndex
CREATE INDEX "plugin_configs_project_id_deleted_order_idx" ON "plugin_configs"("project_id", "deleted", "order");

-- CreateIndex
CREATE UNIQUE INDEX "plugin_config_metrics_plugin_config_id_hour_key" ON "plugin_config_metrics"("plugin_config_id", "hour");

-- CreateIndex
CREATE INDEX "events_project_id_timestamp_idx" ON "events"("project_id", "timestamp");

-- CreateIndex
CREATE INDEX "events_project_id_event_timestamp_idx" ON "events"("project_id", "event", "timestamp");

-- CreateIndex
CREATE INDEX "events_project_id_distinct_id_timestamp_idx" ON "events"("project_id", "distinct_id", "timestamp");

-- CreateIndex
CREATE UNIQUE INDEX "persons_uuid_key" ON "persons"("uuid");

-- CreateIndex
CREATE INDEX "persons_project_id_created_at_idx" ON "persons"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "person_distinct_ids_person_id_idx" ON "person_distinct_ids"("person_id");

-- CreateIndex
CREATE UNIQUE INDEX "person_distinct_ids_project_id_distinct_id_key" ON "person_distinct_ids"("project_id", "distinct_id");

-- CreateIndex
CREATE UNIQUE INDEX "group_type_mappings_project_id_group_type_key" ON "group_type_mappings"("project_id", "group_type");

-- CreateIndex
CREATE UNIQUE INDEX "group_type_mappings_project_id_group_type_index_key" ON "group_type_mappings"("project_id", "group_type_index");

-- CreateIndex
CREATE UNIQUE INDEX "groups_project_id_group_type_index_group_key_key" ON "groups"("project_id", "group_type_index", "group_key");

-- CreateIndex
CREATE INDEX "feature_flags_project_id_deleted_idx" ON "feature_flags"("project_id", "deleted");

-- CreateIndex
CREATE UNIQUE INDEX "feature_flag_hash_key_overrides_project_id_person_id_featur_key" ON "feature_flag_hash_key_overrides"("project_id", "person_id", "feature_flag_key");

-- CreateIndex
CREATE INDEX "activity_logs_project_id_scope_item_id_created_at_idx" ON "activity_logs"("project_id", "scope", "item_id", "created_at");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_current_project_id_fkey" FOREIGN KEY ("current_project_id") REFERENCES "projects"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_memberships" ADD CONSTRAINT "organization_memberships_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_memberships" ADD CONSTRAINT "organization_memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_invites" ADD CONSTRAINT "organization_invites_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_invites" ADD CONSTRAINT "organization_invites_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "personal_api_keys" ADD CONSTRAINT "personal_api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tags" ADD CONSTRAINT "tags_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tagged_items" ADD CONSTRAINT "tagged_items_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tagged_items" ADD CONSTRAINT "tagged_items_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tagged_items" ADD CONSTRAINT "tagged_items_insight_id_fkey" FOREIGN KEY ("insight_id") REFERENCES "insights"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tagged_items" ADD CONSTRAINT "tagged_items_feature_flag_id_fkey" FOREIGN KEY ("feature_flag_id") REFERENCES "feature_flags"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboards" ADD CONSTRAINT "dashboards_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "insights" ADD CONSTRAINT "insights_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "insights" ADD CONSTRAINT "insights_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "insights" ADD CONSTRAINT "insights_last_modified_by_id_fkey" FOREIGN KEY ("last_modified_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_texts" ADD CONSTRAINT "dashboard_texts_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_texts" ADD CONSTRAINT "dashboard_texts_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_texts" ADD CONSTRAINT "dashboard_texts_last_modified_by_id_fkey" FOREIGN KEY ("last_modified_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_insight_id_fkey" FOREIGN KEY ("insight_id") REFERENCES "insights"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_text_id_fkey" FOREIGN KEY ("text_id") REFERENCES "dashboard_texts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_collaborators" ADD CONSTRAINT "dashboard_collaborators_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "dashboard_collaborators" ADD CONSTRAINT "dashboard_collaborators_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sharing_configurations" ADD CONSTRAINT "sharing_configurations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sharing_configurations" ADD CONSTRAINT "sharing_configurations_dashboard_id_fkey" FOREIGN KEY ("dashboard_id") REFERENCES "dashboards"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sharing_configurations" ADD CONSTRAINT "sharing_configurations_insight_id_fkey" FOREIGN KEY ("insight_id") REFERENCES "insights"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sharing_configurations" ADD CONSTRAINT "sharing_configurations_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "plugins" ADD CONSTRAINT "plugins_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "plugin_configs" ADD CONSTRAINT "plugin_configs_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "plugin_configs" ADD CONSTRAINT "plugin_configs_plugin_id_fkey" FOREIGN KEY ("plugin_id") REFERENCES "plugins"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "plugin_config_metrics" ADD CONSTRAINT "plugin_config_metrics_plugin_config_id_fkey" FOREIGN KEY ("plugin_config_id") REFERENCES "plugin_configs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "persons" ADD CONSTRAINT "persons_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "person_distinct_ids" ADD CONSTRAINT "person_distinct_ids_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "person_distinct_ids" ADD CONSTRAINT "person_distinct_ids_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "persons"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "group_type_mappings" ADD CONSTRAINT "group_type_mappings_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "groups" ADD CONSTRAINT "groups_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flags" ADD CONSTRAINT "feature_flags_created_by_id_fkey" FOREIGN KEY ("created_by_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flag_hash_key_overrides" ADD CONSTRAINT "feature_flag_hash_key_overrides_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "feature_flag_hash_key_overrides" ADD CONSTRAINT "feature_flag_hash_key_overrides_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "persons"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activity_logs" ADD CONSTRAINT "activity_logs_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;


-- Hand-written: what Prisma cannot express.
-- A flag key is unique among the project's flags that are not deleted (PostHog lets a
-- deleted flag's key be used again).
CREATE UNIQUE INDEX "feature_flags_project_id_key_live_key" ON "feature_flags"("project_id", "key") WHERE NOT "deleted";
-- A tile shows an insight or a text, never both.
ALTER TABLE "dashboard_tiles" ADD CONSTRAINT "dashboard_tiles_one_content" CHECK (num_nonnulls("insight_id", "text_id") <= 1);
