import type { SqlProvider } from "../../session/contracts/sql-provider.js";

/**
 * Finds the latest leaf of one session: the childless message inserted last (highest `seq`), never
 * by timestamp (docs/behavior/messages-and-tree.md). The answer is cached and re-validated on every use with one indexed
 * statement (the row still exists, still has no child, and the session's `MAX(seq)` is unchanged),
 * so rows written by raw SQL or by another process are picked up.
 */
export class LatestLeafTracker {
  /** `seq` and `maxSeq` are `null` after an append that did not report its `seq` (`appendOnLeaf`). */
  #cached: { id: string; seq: number | null; maxSeq: number | null } | null =
    null;
  /** Appends `appendOnLeaf` refused: another writer keeps moving the leaf, so stop trying. */
  #refused = 0;

  constructor(
    private readonly agent: SqlProvider,
    private readonly sessionId: string,
  ) {}

  /** The id of the latest leaf, or `null` for an empty session. */
  current(): string | null {
    const { agent, sessionId } = this;
    const cached = this.#cached;
    // Nothing to validate (a new provider, the first request after a restart, or a cached leaf
    // without its `seq`): one statement.
    if (!cached || cached.seq === null) return this.#find();
    const [state] = agent.sql<{
      max_seq: number | null;
      present: number;
      has_child: number;
    }>`
      SELECT
        (SELECT MAX(seq) FROM assistant_messages WHERE session_id = ${sessionId}) AS max_seq,
        EXISTS (SELECT 1 FROM assistant_messages
          WHERE seq = ${cached?.seq ?? -1} AND session_id = ${sessionId} AND id = ${cached?.id ?? null}) AS present,
        EXISTS (SELECT 1 FROM assistant_messages
          WHERE session_id = ${sessionId} AND parent_id = ${cached?.id ?? null}) AS has_child`;
    const maxSeq = state?.max_seq ?? null;
    if (maxSeq === null) {
      this.#cached = null;
      return null;
    }
    if (
      cached &&
      cached.maxSeq === maxSeq &&
      state!.present &&
      !state!.has_child
    )
      return cached.id;

    return this.#find();
  }

  /** The cached answer to re-validate inside an insert (`appendMessageRow`), or `null`. */
  candidate(): { id: string; seq: number | null } | null {
    return this.#cached;
  }

  /**
   * Whether an append may try the cached leaf alone (`appendOnLeaf`). After
   * `MAX_REFUSED_LEAF_APPENDS` refusals (another writer moves the leaf, or ids are retried) this
   * provider stops trying: each refusal costs a failed statement before the full one.
   */
  leafAppends(): boolean {
    return this.#refused < MAX_REFUSED_LEAF_APPENDS;
  }

  leafAppendRefused(): void {
    this.#refused++;
  }

  /**
   * Records a freshly inserted message: with the highest `seq` and no child, it is the latest leaf.
   * `seq` is `null` when the insert did not report it.
   */
  remember(id: string, seq: number | null): void {
    this.#cached = { id, seq, maxSeq: seq };
  }

  /** Drops the cache (after deletes), so the next use recomputes. */
  forget(): void {
    this.#cached = null;
  }

  /** The newest childless row, and the session's `MAX(seq)` for the cache, in one statement. */
  #find(): string | null {
    const { agent, sessionId } = this;
    // The newest row is a leaf in every tree Arbor writes, so this stops after one or two index steps.
    const [leaf] = agent.sql<{ seq: number; id: string; max_seq: number }>`
      SELECT m.seq AS seq, m.id AS id,
        (SELECT MAX(seq) FROM assistant_messages WHERE session_id = ${sessionId}) AS max_seq
      FROM assistant_messages AS m
      WHERE m.session_id = ${sessionId}
        AND NOT EXISTS (SELECT 1 FROM assistant_messages AS c
          WHERE c.session_id = ${sessionId} AND c.parent_id = m.id)
      ORDER BY m.seq DESC LIMIT 1`;
    this.#cached = leaf
      ? { id: leaf.id, seq: leaf.seq, maxSeq: leaf.max_seq }
      : null;
    return leaf?.id ?? null;
  }
}

/** Refused `appendOnLeaf` attempts after which a tracker's provider no longer tries them. */
const MAX_REFUSED_LEAF_APPENDS = 8;
