import type { SqlProvider } from "../../session/contracts/sql-provider.js";
import type {
  RecentHistoryResult,
  StoredCompaction,
} from "../../session/contracts/types.js";
import { materializeSpans } from "../../session/messages/stored-rows.js";
import { restoreMessages } from "./sql-attachments.js";
import { readCompactions } from "./sql-compactions.js";
import { readContentsBySeqs } from "./sql-message-chunks.js";
import {
  chooseRecentWindow,
  chooseRecentWindowOfSuffix,
  type RecentWindow,
} from "../../session/tree/recent-window.js";
import {
  hasOctetLength,
  loadPathWithSizes,
  type PathSizeRow,
} from "./sql-path.js";
import { sqlTemplate } from "./sql-transaction.js";

// A recent-history window reads the path from the leaf upward and stops once the budget is
// spent, so its cost follows the window, not the path: on a 10,000-message path, reading every
// row's size into JS (and ordering them) was most of the time the studio waited for the newest
// messages. Only the path's total size still walks the whole path, as one aggregate in SQLite.

/**
 * The recent window of the path to `leafId` (`chooseRecentWindow` of the whole path) from the
 * rows the budget needs, root-most first; `undefined` when those rows cannot tell (an overlay
 * reaching above them: the caller reads the whole path), `null` when the leaf is not stored.
 */
export function recentPathWindow(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
  overlays: readonly StoredCompaction[],
  maxContentBytes: number,
  minRecentMessages: number,
): { rows: PathSizeRow[]; window: RecentWindow } | null | undefined {
  const floor = Math.max(
    1,
    Math.floor(Number.isFinite(minRecentMessages) ? minRecentMessages : 1),
  );
  const read = agent.sql<PathSizeRow & { used: number; depth: number }>(
    statements(agent).upward,
    sessionId,
    leafId,
    sessionId,
    maxContentBytes,
    floor,
    sessionId,
  );
  if (read.length === 0) return null;
  // Leaf first, each row's own size from the running sum; a repeated id (a cycle written by raw
  // SQL) ends the path there, as `walkToRoot` ends it.
  const seen = new Set<string>();
  const leafFirst: PathSizeRow[] = [];
  let cycle = false;
  for (const [index, row] of read.entries()) {
    if (seen.has(row.id)) {
      cycle = true;
      break;
    }
    seen.add(row.id);
    const used = Number(row.used);
    const before = index === 0 ? 0 : Number(read[index - 1]!.used);
    leafFirst.push({
      seq: row.seq,
      id: row.id,
      parent_id: row.parent_id,
      role: row.role,
      bytes: used - before,
    });
  }
  const top = read.at(-1)!;
  // The walk went on from its last row unless the budget (or the floor) was met there: when it
  // would have gone on and found nothing, that row is the root (or its parent is not stored).
  const wouldGoOn =
    Number(top.used) <= maxContentBytes || top.depth + 1 < floor;
  const reachedRoot = cycle || top.parent_id === null || wouldGoOn;
  const rows = leafFirst.reverse();
  const window = chooseRecentWindowOfSuffix(
    rows,
    reachedRoot,
    overlays,
    maxContentBytes,
    floor,
  );
  if (window === null) return undefined;
  if (!reachedRoot)
    window.totalContentBytes = pathBytes(agent, sessionId, leafId);
  return { rows, window };
}

/**
 * The byte-budgeted suffix of the path to `leafId` (docs/behavior/history.md): the window is
 * chosen on stored sizes, read from the leaf upward as far as the budget needs (the whole path
 * only when an overlay reaches above those rows), so content is read for the chosen rows only.
 */
export function loadRecentHistory(
  agent: SqlProvider,
  sessionId: string,
  leafId: string | null,
  maxContentBytes: number,
  minRecentMessages: number,
): RecentHistoryResult {
  const empty = { messages: [], truncated: false, totalContentBytes: 0 };
  if (leafId === null) return empty;
  const overlays = readCompactions(agent, sessionId);
  const upward = recentPathWindow(
    agent,
    sessionId,
    leafId,
    overlays,
    maxContentBytes,
    minRecentMessages,
  );
  if (upward === null) return empty;
  const rows = upward?.rows ?? loadPathWithSizes(agent, sessionId, leafId);
  if (rows.length === 0) return empty;
  const window =
    upward?.window ??
    chooseRecentWindow(rows, overlays, maxContentBytes, minRecentMessages);
  const seqs = window.spans.flatMap((span) =>
    span.kind === "row" ? [rows[span.index]!.seq] : [],
  );
  const contents = readContentsBySeqs(agent, seqs);
  return {
    messages: restoreMessages(
      agent,
      materializeSpans(window.spans, (index) => contents.get(rows[index]!.seq)),
    ),
    truncated: window.truncated,
    totalContentBytes: window.totalContentBytes,
  };
}

// --- Internal helpers ---

/**
 * The stored size of every row on the path to `leafId`, attachments as read included; the
 * whole path's rows (`loadPathWithSizes`) when the links hold a cycle.
 */
function pathBytes(
  agent: SqlProvider,
  sessionId: string,
  leafId: string,
): number {
  const [row] = agent.sql<{
    rows: number;
    bytes: number | null;
    stored: number;
  }>(
    statements(agent).total,
    sessionId,
    leafId,
    sessionId,
    sessionId,
    sessionId,
  );
  if (row !== undefined && Number(row.rows) <= Number(row.stored))
    return Number(row.bytes ?? 0);
  let bytes = 0;
  for (const entry of loadPathWithSizes(agent, sessionId, leafId))
    bytes += entry.bytes;
  return bytes;
}

/** What a row weighs as read: its stored JSON and what its attachments add back. */
function rowBytesSql(octetLength: boolean): string {
  // octet_length (SQLite 3.43+) reads the stored size without loading the text.
  const stored = octetLength
    ? "octet_length(m.content)"
    : "length(CAST(m.content AS BLOB))";
  return `(COALESCE(m.chunked_bytes,${stored})+COALESCE((SELECT sum(r.extra_bytes) FROM arbor_attachment_refs r WHERE r.session_id=m.session_id AND r.message_id=m.id),0))`;
}

/** The session's row count: no walk of a path takes more steps, so a cycle ends. */
const STORED = "(SELECT count(*) FROM assistant_messages WHERE session_id=?)";

/**
 * The leaf and its ancestors while the running size is within the budget (or fewer rows than
 * the floor are read), the first row over it included, so the caller sees where the window
 * stops; never more steps than the session has rows, so a cycle ends. And the path's total.
 * (Written without spaces a reader does not need: the statements ship in a Worker's bundle.)
 */
function buildStatements(octetLength: boolean): {
  upward: TemplateStringsArray;
  total: TemplateStringsArray;
} {
  const bytes = rowBytesSql(octetLength);
  const from = "assistant_messages m ON m.session_id=? AND m.id=p.parent_id";
  return {
    upward: sqlTemplate(
      `WITH RECURSIVE up(seq,parent_id,depth,used) AS (SELECT m.seq,m.parent_id,0,${bytes} FROM assistant_messages m WHERE m.session_id=? AND m.id=? UNION ALL SELECT m.seq,m.parent_id,p.depth+1,p.used+${bytes} FROM up p JOIN ${from} WHERE (p.used<=? OR p.depth+1<?) AND p.depth<${STORED}) SELECT m.seq,m.id,m.parent_id,m.role,p.used,p.depth FROM up p JOIN assistant_messages m ON m.seq=p.seq ORDER BY p.depth`,
    ),
    // UNION ALL without a visited set (half the cost of UNION's here): a walk longer than the
    // session has rows went round a cycle, and the caller reads the path instead.
    total: sqlTemplate(
      `WITH RECURSIVE path(seq,parent_id,depth) AS (SELECT seq,parent_id,0 FROM assistant_messages WHERE session_id=? AND id=? UNION ALL SELECT m.seq,m.parent_id,p.depth+1 FROM path p JOIN ${from} WHERE p.depth<${STORED}) SELECT count(*) AS rows,sum(${bytes}) AS bytes,${STORED} AS stored FROM path p JOIN assistant_messages m ON m.seq=p.seq`,
    ),
  };
}

const WITH_OCTET_LENGTH = buildStatements(true);
const WITHOUT_OCTET_LENGTH = buildStatements(false);

function statements(agent: SqlProvider): ReturnType<typeof buildStatements> {
  return hasOctetLength(agent) ? WITH_OCTET_LENGTH : WITHOUT_OCTET_LENGTH;
}
