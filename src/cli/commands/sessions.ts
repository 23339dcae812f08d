import {
  integerOption,
  JSON_OPTION,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import {
  requireSession,
  unownedSessions,
  withExistingStore,
  withReadStore,
} from "../session-data.js";
import { printJson, table } from "../text.js";

const list: CommandSpec = {
  name: "sessions list",
  summary: "List sessions, most recently updated first.",
  usage: "[--owner <id>] [--limit <n>]",
  positionals: { min: 0, max: 0 },
  options: {
    owner: {
      type: "string",
      value: "id",
      description: "only this owner's sessions",
    },
    limit: {
      type: "string",
      value: "n",
      description: "at most n sessions (default 50)",
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: (command) => {
    // Options are checked before the store opens: a typo is a usage error, whatever the store.
    const limit = integerOption(command, "limit", 50);
    return withReadStore(command, async ({ manager }) => {
      const owner = stringOption(command, "owner");
      const sessions = await manager.list({
        limit,
        ...(owner ? { ownerId: owner } : {}),
      });
      const rows = await Promise.all(
        sessions.map(async (info) => ({
          ...info,
          messageCount: await manager.getSession(info.id).countMessages(),
        })),
      );
      if (command.values.json) return printJson({ sessions: rows });
      if (rows.length === 0) return console.log("No sessions.");
      console.log(
        table(
          ["ID", "MESSAGES", "UPDATED", "NAME"],
          rows.map((row) => [
            row.id,
            String(row.messageCount),
            row.updated_at.slice(0, 19).replace("T", " "),
            row.name,
          ]),
        ),
      );
    });
  },
};

const show: CommandSpec = {
  name: "sessions show",
  summary:
    "Show one session: its row, owner, metadata, counts and active leaf.",
  usage: "<id>",
  positionals: { min: 1, max: 1 },
  options: { ...JSON_OPTION, ...STORE_OPTIONS },
  run: (command) =>
    withReadStore(command, async ({ manager }) => {
      const id = command.positionals[0]!;
      const info = await requireSession(manager, id);
      const session = manager.getSession(id);
      const [ownerId, messageCount, leaf, compactions] = await Promise.all([
        manager.getOwner(id),
        session.countMessages(),
        session.getLatestLeaf(),
        session.getCompactions(),
      ]);
      const view = {
        ...info,
        ownerId,
        metadata: await manager.listMetadata(id),
        messageCount,
        activeLeafId: leaf?.id ?? null,
        compactions: compactions.length,
      };
      if (command.values.json) return printJson(view);
      const rows: Array<[string, string]> = [
        ["id", view.id],
        ["name", view.name],
        ["owner", view.ownerId ?? "-"],
        ["messages", String(view.messageCount)],
        ["active leaf", view.activeLeafId ?? "-"],
        ["overlays", String(view.compactions)],
        ["model", view.model ?? "-"],
        ["source", view.source ?? "-"],
        ["tokens", `${view.input_tokens} in, ${view.output_tokens} out`],
        ["created", view.created_at],
        ["updated", view.updated_at],
      ];
      if (view.parent_session_id) rows.push(["parent", view.parent_session_id]);
      if (view.end_reason) rows.push(["ended", view.end_reason]);
      for (const [key, value] of Object.entries(view.metadata))
        rows.push([`metadata.${key}`, value]);
      const width = Math.max(...rows.map(([key]) => key.length));
      console.log(
        rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`).join("\n"),
      );
    }),
};

const rename: CommandSpec = {
  name: "sessions rename",
  summary: "Rename a session.",
  usage: "<id> <name>",
  positionals: { min: 2, max: 2 },
  options: { ...STORE_OPTIONS },
  run: (command) =>
    withExistingStore(command, async ({ manager }) => {
      const [id, name] = command.positionals as [string, string];
      await requireSession(manager, id);
      await manager.rename(id, name);
      console.log(`Renamed ${id} to "${name}".`);
    }),
};

const remove: CommandSpec = {
  name: "sessions delete",
  summary: "Delete a session with all its messages, overlays and blocks.",
  usage: "<id>",
  positionals: { min: 1, max: 1 },
  options: { ...STORE_OPTIONS },
  run: (command) =>
    withExistingStore(command, async ({ manager }) => {
      const id = command.positionals[0]!;
      await requireSession(manager, id);
      await manager.delete(id);
      console.log(`Deleted ${id}.`);
    }),
};

const assign: CommandSpec = {
  name: "sessions assign",
  summary: "Give sessions to a tenant, so that its API keys reach them.",
  usage: "--tenant <name> (<id>... | --unowned)",
  positionals: { min: 0, max: Infinity },
  details:
    "With API keys, a key sees only its tenant's sessions: sessions written before the first key\n(the sample, imports without --owner) belong to nobody until assigned. A session that already\nbelongs to another tenant is moved only with --force.",
  options: {
    tenant: {
      type: "string",
      value: "name",
      description: "the tenant that gets the sessions (required)",
    },
    unowned: {
      type: "boolean",
      description: "every session that has no owner yet",
    },
    force: {
      type: "boolean",
      description: "also move sessions that belong to another tenant",
    },
    ...STORE_OPTIONS,
  },
  run: (command) =>
    withExistingStore(command, async ({ manager }) => {
      const tenant = stringOption(command, "tenant");
      const ids = command.positionals;
      if (!tenant || (ids.length === 0) === (command.values.unowned !== true))
        throw new UsageError(
          "arbor sessions assign needs --tenant <name> and either session ids or --unowned",
        );
      const targets = ids.length > 0 ? ids : await unownedSessions(manager);
      for (const id of targets) {
        await requireSession(manager, id);
        await manager.setOwner(id, tenant, {
          force: command.values.force === true,
        });
      }
      console.log(
        `${targets.length} session${targets.length === 1 ? "" : "s"} now belong${targets.length === 1 ? "s" : ""} to "${tenant}".`,
      );
    }),
};

/** `arbor sessions list|show|rename|delete|assign`. */
export const sessionCommands: CommandSpec[] = [
  list,
  show,
  rename,
  remove,
  assign,
];
