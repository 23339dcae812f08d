import {
  JSON_OPTION,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { CliError } from "../errors.js";
import {
  countOwnedSessions,
  unownedSessions,
  withExistingStore,
  withStore,
} from "../session-data.js";
import { printJson, table } from "../text.js";

const create: CommandSpec = {
  name: "keys create",
  summary: "Create an API key for a tenant; the key is printed once.",
  usage: "--tenant <name> [--name <label>]",
  positionals: { min: 0, max: 0 },
  details:
    "Once a key exists, `arbor serve` requires `Authorization: Bearer <key>` on every route but\n/health and /openapi.json; each key sees only its tenant's sessions.",
  options: {
    tenant: {
      type: "string",
      value: "name",
      description: "the tenant (owner) the key acts as (required)",
    },
    name: {
      type: "string",
      value: "label",
      description: "a label to recognise the key by",
    },
    ...JSON_OPTION,
    ...STORE_OPTIONS,
  },
  run: (command) =>
    withStore(command, async (store) => {
      const keys = await store.keys();
      const tenant = stringOption(command, "tenant");
      if (!tenant)
        throw new UsageError(
          "arbor keys create needs --tenant <name> (see arbor keys create --help)",
        );
      const label = stringOption(command, "name");
      const { key, record } = await keys.create(
        tenant,
        label ? { name: label } : {},
      );
      if (command.values.json) return printJson({ key, record });
      console.log(`Created key ${record.id} for tenant "${tenant}".`);
      console.log(key);
      console.error("Store it now: it is not shown again.");
      if ((await unownedSessions(store.manager, 1)).length > 0)
        console.error(
          `Sessions without an owner are not reachable with any key; to give them to "${tenant}": arbor sessions assign --unowned --tenant ${tenant}`,
        );
    }),
};

const list: CommandSpec = {
  name: "keys list",
  summary: "List API keys (ids, tenants and labels; never the keys).",
  usage: "",
  positionals: { min: 0, max: 0 },
  options: { ...JSON_OPTION, ...STORE_OPTIONS },
  run: (command) =>
    withExistingStore(command, async (store) => {
      const keys = await store.keys();
      const records = await keys.list();
      if (command.values.json) return printJson({ keys: records });
      if (records.length === 0) return console.log("No API keys.");
      console.log(
        table(
          ["ID", "TENANT", "CREATED", "NAME"],
          records.map((record) => [
            record.id,
            record.tenant,
            String(record.createdAt ?? "")
              .slice(0, 19)
              .replace("T", " "),
            record.name ?? "",
          ]),
        ),
      );
    }),
};

const revoke: CommandSpec = {
  name: "keys revoke",
  summary: "Revoke an API key by id (the last one only with --yes).",
  usage: "<id> [--yes]",
  positionals: { min: 1, max: 1 },
  details:
    "Revoking the last key leaves the store without authentication: `arbor serve` then refuses to\nstart while sessions have owners, unless it is given --no-auth. So the last key goes only with --yes.",
  options: {
    yes: {
      type: "boolean",
      description: "revoke it even when it is the last key",
    },
    ...STORE_OPTIONS,
  },
  run: (command) =>
    withExistingStore(command, async (store) => {
      const keys = await store.keys();
      const id = command.positionals[0]!;
      const records = await keys.list();
      if (!records.some((record) => record.id === id)) {
        throw new CliError(
          "API_KEY_NOT_FOUND",
          `No API key "${id}" (arbor keys list shows the ids)`,
        );
      }
      const isLast = records.length === 1;
      if (isLast && command.values.yes !== true) {
        const owned = await countOwnedSessions(store.manager);
        throw new CliError(
          "CONFIRMATION_REQUIRED",
          `${id} is the last API key: with no key left, authentication is off. ${ownedNote(owned)} To revoke it anyway: arbor keys revoke ${id} --yes`,
        );
      }
      if (!(await keys.revoke(id))) {
        // Revoked by someone else between the list and now.
        throw new CliError(
          "API_KEY_NOT_FOUND",
          `No API key "${id}" (arbor keys list shows the ids)`,
        );
      }
      console.log(`Revoked ${id}.`);
      if (isLast) {
        console.error(
          "No API keys are left: arbor serve now refuses to start while sessions have owners, unless given --no-auth (which serves every session to every request).",
        );
      }
    }),
};

/** What losing the last key means for this store's sessions. */
function ownedNote(owned: number): string {
  if (owned === 0)
    return "No session has an owner yet, so arbor serve would start without authentication.";
  return `${owned} session${owned === 1 ? " has an owner" : "s have owners"}: arbor serve would then refuse to start unless given --no-auth, which serves them to every request.`;
}

/** `arbor keys create|list|revoke`. */
export const keyCommands: CommandSpec[] = [create, list, revoke];
