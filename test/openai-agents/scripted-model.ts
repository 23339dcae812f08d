// The fake scripted model for the Agents SDK's Runner, kept in plain JavaScript so that a child
// process can import it too (fake-scripted-model.mjs); re-exported here for the TypeScript tests.
export { callTool, say, ScriptedModel } from "./fake-scripted-model.mjs";
