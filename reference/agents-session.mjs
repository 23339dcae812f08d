// The reference's session module, resolved from this folder's own node_modules (the root
// package no longer depends on agents). Imported by bench/reference.mjs.
export * from "agents/experimental/memory/session";
