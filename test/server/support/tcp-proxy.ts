// A TCP forwarder the test controls, in front of PostgreSQL: the way fault tests cause outages
// without touching the shared server. `cut()` drops every connection and refuses new ones (as a
// stopped server does), `stall()` keeps connections open but forwards nothing (a network that
// went silent; what it held back is delivered on `restore()`), `restore()` forwards again.
import net from "node:net";

type Mode = "forward" | "cut" | "stall";

export class TcpProxy {
  #mode: Mode = "forward";
  readonly #pairs = new Set<[net.Socket, net.Socket]>();
  /** What a stall held back, per destination, in order. */
  readonly #held = new Map<net.Socket, Buffer[]>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and forwards to `target`. */
  static async start(target: {
    host: string;
    port: number;
  }): Promise<TcpProxy> {
    let proxy: TcpProxy | undefined;
    const server = net.createServer((client) => proxy!.accept(client, target));
    await new Promise<void>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve()),
    );
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = "127.0.0.1";
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Open client connections. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** Chunks a stall is holding back: more than 0 once a statement was sent into it. */
  get held(): number {
    let chunks = 0;
    for (const held of this.#held.values()) chunks += held.length;
    return chunks;
  }

  /** Drops every connection and stops listening: new connections are refused. */
  cut(): void {
    this.#mode = "cut";
    if (this.server.listening) this.server.close();
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
    this.#held.clear();
  }

  stall(): void {
    this.#mode = "stall";
  }

  /** Forwards again, listening on the same port. */
  async restore(): Promise<void> {
    if (!this.server.listening)
      await new Promise<void>((resolve, reject) => {
        this.server.once("error", reject);
        this.server.listen(this.port, "127.0.0.1", () => {
          this.server.off("error", reject);
          resolve();
        });
      });
    this.#mode = "forward";
    for (const [destination, chunks] of this.#held) {
      for (const chunk of chunks) destination.write(chunk);
    }
    this.#held.clear();
  }

  async close(): Promise<void> {
    this.cut();
  }

  // --- Internal helpers ---

  private accept(
    client: net.Socket,
    target: { host: string; port: number },
  ): void {
    client.on("error", () => undefined);
    if (this.#mode === "cut") {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on("error", () => undefined);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.#pairs.add(pair);
    const drop = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("close", drop);
    upstream.on("close", drop);
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  private forward(from: net.Socket, to: net.Socket): void {
    from.on("data", (chunk: Buffer) => {
      if (this.#mode === "forward") to.write(chunk);
      else if (this.#mode === "stall")
        this.#held.set(to, [...(this.#held.get(to) ?? []), chunk]);
    });
  }
}
