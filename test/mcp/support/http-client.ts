import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The SDK Client over Streamable HTTP at `url`, with an API key and an optional fetch of its own. */
export async function connectHttp(
  url: string,
  options: { key?: string; fetch?: typeof fetch } = {},
): Promise<Client> {
  const client = new Client({ name: "arbor-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(options.key
      ? { requestInit: { headers: { Authorization: `Bearer ${options.key}` } } }
      : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  await client.connect(transport);
  return client;
}
