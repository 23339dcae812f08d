// The fourth backend's `streams`: the cases every built-in backend's streams pass.
import { runBackendStreamsCases } from "../ai-sdk/backend-streams.cases.js";
import { kvBackend } from "./kv-backend.js";

runBackendStreamsCases("kv (the fourth backend)", () =>
  Promise.resolve(kvBackend().streams!),
);
