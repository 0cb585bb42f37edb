/**
 * Burrow's administration CLI: `npm run --silent admin -- <command> [options]`.
 * Same configuration as the server; with the embedded database it refuses to run while a
 * server holds DATA_DIR. With --json, stdout carries exactly one JSON object.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { bootstrap, createPersonalApiKey, createUser, findUserByEmail } from "@/server/accounts/service";
import { ConfigError, dbConfigFromEnv } from "@/server/db/config";
import { openDatabase, type Database } from "@/server/db/client";
import { DEFAULT_MOVE_BATCH_SIZE, fileCheckpoint, moveEventsToClickHouse } from "@/server/db/events/move-to-clickhouse";
import { describeEventStore, eventStoreConfigFromEnv } from "@/server/db/events/config";
import { moveProgressReporter } from "./progress";
import { migrate, MigrationError } from "@/server/db/migrate";
import { AppError } from "@/server/errors";

const USAGE = `usage: npm run --silent admin -- <command> [options] [--json]

commands:
  bootstrap --email E --password P [--organization NAME] [--project NAME]
  create-user --email E --password P --organization ORG_ID [--level member|admin]
  create-api-key --email E --scopes S1,S2,… [--project PROJECT_ID] [--label L]
  migrate
  move-events-to-clickhouse [--project PROJECT_ID] [--batch-size N] [--checkpoint FILE]`;

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === "string" ? value : undefined;
}

function positiveInt(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

/**
 * A command checks its options first (so a usage mistake never touches the database), then
 * runs against the opened, migrated database.
 */
interface Command {
  parse(options: Options): unknown;
  run(db: Database, input: never, applied: string[]): Promise<{ json: object; text: string }>;
}

const command = <Input>(definition: {
  parse(options: Options): Input;
  run(db: Database, input: Input, applied: string[]): Promise<{ json: object; text: string }>;
}): Command => definition as Command;

/**
 * `BURROW_TEST_KILL_MOVE_AFTER_INSERTS=N` kills the move (SIGKILL, no clean-up) right after
 * its N-th ClickHouse insert, before that batch's position is saved: the worst moment for
 * the checkpoint, chosen by tests instead of a race against a timer.
 */
function killAfterInsertsForTests(): (() => void) | undefined {
  const after = Number(process.env.BURROW_TEST_KILL_MOVE_AFTER_INSERTS);
  if (!Number.isInteger(after) || after < 1) return undefined;
  let inserts = 0;
  return () => {
    if (++inserts === after) process.kill(process.pid, "SIGKILL");
  };
}

const COMMANDS: Record<string, Command> = {
  bootstrap: command({
    parse: (options) => ({
      email: required(options, "email"),
      password: required(options, "password"),
      organization: optional(options, "organization"),
      project: optional(options, "project"),
    }),
    async run(db, input) {
      const result = await bootstrap(db.prisma, input);
      return {
        json: result,
        text: [
          `user:              ${result.user.email} (id ${result.user.id})`,
          `organization:      ${result.organization_id}`,
          `project:           ${result.project_id}`,
          `project API key:   ${result.project_api_key}`,
          `personal API key:  ${result.personal_api_key}  (shown once; store it now)`,
        ].join("\n"),
      };
    },
  }),

  "create-user": command({
    parse(options) {
      const level = optional(options, "level") ?? "member";
      if (level !== "member" && level !== "admin") throw new UsageError("--level must be member or admin");
      return {
        email: required(options, "email"),
        password: required(options, "password"),
        organizationId: required(options, "organization"),
        level,
      } as const;
    },
    async run(db, input) {
      const user = await createUser(db.prisma, input);
      return { json: user, text: `created user ${user.email} (id ${user.id}, uuid ${user.uuid})` };
    },
  }),

  "create-api-key": command({
    parse(options) {
      const project = optional(options, "project");
      return {
        email: required(options, "email"),
        scopes: required(options, "scopes")
          .split(",")
          .map((scope) => scope.trim())
          .filter(Boolean),
        label: optional(options, "label"),
        projectId: project === undefined ? undefined : positiveInt(project, "project"),
      };
    },
    async run(db, { email, scopes, label, projectId }) {
      const user = await findUserByEmail(db.prisma, email);
      if (!user) throw new AppError("not_found", `No user has the e-mail ${email}.`);
      const { key } = await createPersonalApiKey(db.prisma, user.id, { scopes: scopes as never, label, projectId });
      return { json: { key }, text: `${key}  (shown once; store it now)` };
    },
  }),

  "move-events-to-clickhouse": command({
    parse(options) {
      const project = optional(options, "project");
      const batchSize = optional(options, "batch-size");
      return {
        projectId: project === undefined ? undefined : positiveInt(project, "project"),
        batchSize: batchSize === undefined ? DEFAULT_MOVE_BATCH_SIZE : positiveInt(batchSize, "batch-size"),
        checkpoint: optional(options, "checkpoint"),
      };
    },
    async run(db, { projectId, batchSize, checkpoint }) {
      // One position per target and scope, in DATA_DIR unless --checkpoint names a file.
      const file = path.resolve(checkpoint ?? path.join(process.env.DATA_DIR?.trim() || "./data", "move-events-to-clickhouse.json"));
      const target = describeEventStore(eventStoreConfigFromEnv());
      const scope = projectId === undefined ? "all projects" : `project ${projectId}`;
      const progress = moveProgressReporter(process.stderr);
      let result;
      try {
        result = await moveEventsToClickHouse(db.sql, db.events, {
          projectId,
          batchSize,
          checkpoint: fileCheckpoint(file, `${target}, ${scope}`),
          onProgress: progress.update,
          afterInsert: killAfterInsertsForTests(),
        });
      } finally {
        progress.end();
      }
      const json = {
        moved: result.movedNow,
        moved_total: result.moved,
        inserted_total: result.inserted,
        total: result.total,
        resumed: result.resumed,
        checkpoint: file,
      };
      const text = [
        `${result.resumed ? "resumed; " : ""}moved ${result.movedNow} events of ${scope} now, ${result.moved} of ${result.total} in all (${target})`,
        `${result.moved - result.inserted} were in ClickHouse already and were skipped; checkpoint ${file}`,
      ].join("\n");
      return { json, text };
    },
  }),

  migrate: command({
    parse: () => null,
    async run(_db, _input, applied) {
      return {
        json: { applied },
        text: applied.length > 0 ? `applied ${applied.join(", ")}` : "no pending migrations",
      };
    },
  }),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const selected = name ? COMMANDS[name] : undefined;
  if (!selected) {
    console.error(name ? `admin: unknown command '${name}'\n${USAGE}` : USAGE);
    return 2;
  }
  let options: Options;
  try {
    options = parseArgs({
      args: rest,
      options: {
        json: { type: "boolean" },
        email: { type: "string" },
        password: { type: "string" },
        organization: { type: "string" },
        project: { type: "string" },
        level: { type: "string" },
        scopes: { type: "string" },
        label: { type: "string" },
        "batch-size": { type: "string" },
        checkpoint: { type: "string" },
      },
      strict: true,
    }).values;
  } catch (error) {
    console.error(`admin: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }

  let db: Database | undefined;
  try {
    const input = selected.parse(options);
    db = await openDatabase(dbConfigFromEnv(), eventStoreConfigFromEnv());
    const applied = await migrate(db.sql);
    const { json, text } = await selected.run(db, input as never, applied);
    console.log(options.json ? JSON.stringify(json) : text);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`admin: ${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof ZodError) {
      const issue = error.issues[0]!;
      console.error(`admin: ${issue.path.join(".") || "input"}: ${issue.message}`);
    } else if (error instanceof AppError || error instanceof ConfigError || error instanceof MigrationError) {
      console.error(`admin: ${error.message}`);
    } else {
      console.error("admin: unexpected error:", error);
    }
    return 1;
  } finally {
    await db?.close();
  }
}

// What the CLI writes into DATA_DIR (a new database, the lock) is for this user alone, as the server's.
process.umask(0o077);
process.exitCode = await main(process.argv.slice(2));
