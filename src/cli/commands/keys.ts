import {
  JSON_OPTION,
  STORE_OPTIONS,
  stringOption,
  UsageError,
  type CommandSpec,
} from "../args.js";
import { unownedSessions, withStore } from "../session-data.js";
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
    withStore(command, async (store) => {
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
  summary: "Revoke an API key by id.",
  usage: "<id>",
  positionals: { min: 1, max: 1 },
  options: { ...STORE_OPTIONS },
  run: (command) =>
    withStore(command, async (store) => {
      const keys = await store.keys();
      const id = command.positionals[0]!;
      if (!(await keys.revoke(id))) {
        throw new Error(`No API key "${id}" (arbor keys list shows the ids)`);
      }
      console.log(`Revoked ${id}.`);
    }),
};

/** `arbor keys create|list|revoke`. */
export const keyCommands: CommandSpec[] = [create, list, revoke];
