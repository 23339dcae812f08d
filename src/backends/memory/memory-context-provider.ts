/**
 * A writable context block kept in memory, shared per key within one in-memory store. Returned
 * by `InMemorySessionProvider.createContextProvider()` so auto-wired blocks and cached prompts
 * work without a database.
 */
export class InMemoryContextProvider {
  constructor(
    private readonly rows: Map<string, string>,
    private readonly key: string,
  ) {}

  async get(): Promise<string | null> {
    return this.rows.get(this.key) ?? null;
  }

  async set(content: string): Promise<void> {
    this.rows.set(this.key, content);
  }
}
