// A realistic agent's context: identity, memory the model edits, skills loaded on demand and
// searchable knowledge, rendered into one frozen system prompt. Prints the prompt and the tools.
// Run after `npm run build`: node examples/context-blocks.mjs
import { AgentSearchProvider, Session } from "arbor-memory/session";
import { openSqlite } from "arbor-memory/sqlite";

const db = openSqlite(":memory:");

const skills = new Map([
  [
    "deploy-checklist",
    {
      description: "Steps before a production deployment",
      body: "1. Freeze merges\n2. Run the migration dry-run\n3. Page the on-call engineer",
    },
  ],
  [
    "incident-report",
    {
      description: "Template for incident write-ups",
      body: "## Summary\n## Timeline\n## Root cause\n## Follow-ups",
    },
  ],
]);
const skillProvider = {
  get: async () =>
    [...skills]
      .map(([key, skill]) => `- ${key}: ${skill.description}`)
      .join("\n"),
  load: async (key) => skills.get(key)?.body ?? null,
};

const knowledge = new AgentSearchProvider(db);

const session = Session.create(db)
  .forSession("ops-assistant")
  .withContext("soul", {
    provider: {
      get: async () =>
        "You are Juniper, the operations assistant of the Acme platform team. Be brief and precise.",
    },
  })
  .withContext("memory", {
    description: "Learned facts about the team",
    maxTokens: 1100,
  })
  .withContext("user", {
    description: "The person you are talking to",
    maxTokens: 300,
  })
  .withContext("skills", { description: "Playbooks", provider: skillProvider })
  .withContext("runbooks", {
    description: "Searchable runbooks",
    provider: knowledge,
  })
  .withCachedPrompt();

await session.replaceContextBlock(
  "memory",
  "- Deployments happen on Fridays at 10:00 UTC.\n- The staging database is refreshed nightly.\n- Mira owns the billing service; Tomasz owns search.",
);
await session.replaceContextBlock(
  "user",
  "Name: Ana. Role: SRE. Prefers answers as checklists.",
);
await session.loadContext();
knowledge.init("runbooks");
await knowledge.set(
  "rollback",
  "Rolling back a release: run deploy --rollback <tag>, then verify health checks.",
);
await knowledge.set(
  "pager",
  "Paging: use the #oncall channel; escalate after 15 minutes.",
);

console.log(await session.refreshSystemPrompt());
const tools = await session.tools();
console.log("\nTools:", Object.keys(tools).join(", "));
console.log("\nset_context description:\n" + tools.set_context.description);
db.close();
