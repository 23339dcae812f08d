import { sqlState } from "./postgres-errors.js";
import {
  decodeMessage,
  searchableText,
} from "../../session/messages/message-codec.js";
import {
  normalizeSearchLimit,
  RANK_WINDOW,
  rankTail,
} from "../../session/text/search-limit.js";
import type {
  SearchResult,
  TextSearchOptions,
} from "../../session/contracts/types.js";
import type { PostgresQueryable } from "./postgres-client.js";
import {
  rankedTerms,
  termTsquery,
  tsquerySql,
  type RankedTerm,
  type SearchTerm,
} from "./postgres-search-text.js";
import { rarestIndexes } from "../../session/text/query-analysis.js";
import {
  rareCountCap,
  rareTermArm,
  type RareTermArm,
} from "../../session/text/rare-terms.js";
import { isoSql } from "./postgres-sql.js";
import { commonFormSql, commonLexemesParam } from "./postgres-term-stats.js";

/**
 * Full-text search within one session (docs/behavior/search.md): ranked any-term by default (every term with `match: "all"`), operators are literal,
 * CJK words match anywhere inside a sentence. The newest matches within the rank window, `ts_rank`
 * first, ties newest first. `content` is
 * the message's searchable text, rebuilt from the stored message. Empty, unsearchable or
 * engine-rejected queries give `[]`; other errors (connection, missing table) propagate.
 */
export async function searchSessionMessages(
  db: PostgresQueryable,
  config: string,
  sessionId: string,
  query: string,
  limit?: number,
  options: TextSearchOptions = {},
): Promise<SearchResult[]> {
  const hits = await searchMessageRows(
    db,
    config,
    query,
    limit,
    { sql: "m.session_id = ?", params: [sessionId] },
    options,
  );
  return hits.map(({ sessionId: _session, ...hit }) => hit);
}

/** Which messages a search covers: a condition on `m` (`assistant_messages`) with its parameters. */
export interface MessageSearchScope {
  sql: string;
  params: readonly unknown[];
  /**
   * A condition that costs a probe per row (the registry check of a cross-session search), on
   * `m.session_id`: checked on the matches in newest-first order after they are ordered, so only
   * the rows read until a window is full pay it, not every match of a bitmap scan (at 1,000,000
   * messages, a two-word query's 1,000 matches cost 2 ms of probes for a window of 200).
   */
  late?: { sql: string; params: readonly unknown[] };
}

/**
 * The message search of `searchSessionMessages` over any scope (one session, or the sessions of
 * the SessionManager registry): same matching, same order (`ts_rank`, then newest first by
 * insertion `seq`). Every result carries its `sessionId`.
 */
export async function searchMessageRows(
  db: PostgresQueryable,
  config: string,
  query: string,
  limit: number | undefined,
  messageScope: MessageSearchScope,
  options: TextSearchOptions = {},
): Promise<Array<SearchResult & { sessionId: string }>> {
  const ranked = rankedTerms(query, options.match ?? "any", options.prefix);
  if (ranked.length === 0) return [];
  const scope = withTimeRange(messageScope, options);
  const count = normalizeSearchLimit(limit);
  const window = options.rankWindow ?? RANK_WINDOW;
  // Under `match: "all"` every term is one form, as written (`rankedTerms`).
  const every =
    options.match === "all" ||
    (ranked.length === 1 && ranked[0]!.forms.length === 1)
      ? everyTermStatement(
          ranked.map((term) => term.forms[0]!),
          scope,
          config,
          count,
          window,
        )
      : null;
  let rows: HitRow[];
  try {
    let statement = every;
    if (statement === null) {
      const { terms, arm, weights } = await rareTerms(
        db,
        ranked,
        config,
        window,
      );
      statement = rankedStatement(
        terms,
        scope,
        config,
        count,
        window,
        arm,
        weights,
      );
    }
    rows = await db.query<HitRow>(statement.sql, statement.params);
  } catch (error) {
    if (isRejectedQuery(error)) return [];
    throw error;
  }
  const results: Array<SearchResult & { sessionId: string }> = [];
  for (const row of rows) {
    const message = decodeMessage(row.content);
    if (message === null) continue;
    results.push({
      id: row.id,
      role: row.role,
      content: searchableText(message),
      createdAt: row.created_at,
      sessionId: row.session_id,
    });
  }
  return results;
}

/** Parameters of `tsquerySql(terms, "?::regconfig")`. */
export function queryParams(
  terms: readonly SearchTerm[],
  config: string,
): unknown[] {
  return terms.flatMap((term) => [config, termTsquery(term).text]);
}

/** Substring conditions on the stored search text for the CJK runs of the terms. */
export function matchSql(
  terms: readonly SearchTerm[],
  column: string,
): { sql: string; params: string[] } {
  const params = terms.flatMap((term) => term.substrings);
  return {
    sql: params.map(() => ` AND strpos(${column}, ?) > 0`).join(""),
    params,
  };
}

/**
 * Errors a query can cause by its content (SQLSTATE classes 22 data exception, 54 program limit
 * exceeded, e.g. "tsquery is too large"); connection and schema errors are not among them.
 */
export function isRejectedQuery(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && /^(22|54)/.test(code);
}

// --- Internal helpers ---

/** The scope narrowed to `since` (inclusive) and `until` (exclusive) on `created_at`. */
function withTimeRange(
  scope: MessageSearchScope,
  options: TextSearchOptions,
): MessageSearchScope {
  const conditions = [`(${scope.sql})`];
  const params = [...scope.params];
  if (options.since !== undefined) {
    conditions.push("m.created_at >= ?::timestamptz");
    params.push(options.since);
  }
  if (options.until !== undefined) {
    conditions.push("m.created_at < ?::timestamptz");
    params.push(options.until);
  }
  if (conditions.length === 1) return scope;
  return { ...scope, sql: conditions.join(" AND "), params };
}

/**
 * The pieces that put the scope's late check (`MessageSearchScope.late`) after an arm's order:
 * `OFFSET 0` keeps the ordered matches a subquery of their own, so the check runs on them in
 * order and the limit stops it (the planner passes the limit down, and still walks `seq`
 * backwards when that is cheaper). Empty pieces without a late check.
 */
function lateCheck(scope: MessageSearchScope): {
  fence: string;
  where: string;
  params: readonly unknown[];
} {
  if (!scope.late) return { fence: "", where: "", params: [] };
  return {
    fence: "\n        OFFSET 0",
    where: ` WHERE (${scope.late.sql})`,
    params: scope.late.params,
  };
}

/** A statement and its parameters, in the order of its `?` placeholders. */
interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Every term required (`match: "all"`, or a one-term query): the newest matches up to the rank
 * window (seq and row address only); `ts_rank` then reads those rows alone
 * (docs/behavior/search.md#ranking-limits-and-results), fetched by `ctid` because `seq` alone has
 * no index: joining on it scanned the whole table. One statement, one snapshot, so each `ctid`
 * names the row version the CTE saw. The tsquery is inline, not in a CTE, so the planner sees
 * how common its words are when it picks a plan. A limit past the window reads that many more
 * of the newest matches (`rankTail`): they follow the scored ones unscored, newest first.
 */
function everyTermStatement(
  terms: readonly SearchTerm[],
  scope: MessageSearchScope,
  config: string,
  count: number,
  window: number,
): Statement {
  const tsquery = tsquerySql(terms, "?::regconfig");
  const match = matchSql(terms, "m.text_content");
  const late = lateCheck(scope);
  return {
    sql: `WITH hit AS MATERIALIZED (
      SELECT m.seq, m.row_id FROM (
        SELECT m.seq, m.ctid AS row_id, m.session_id
        FROM assistant_messages AS m
        WHERE m.content_tsv @@ (${tsquery}) AND (${scope.sql})${match.sql}
        ORDER BY m.seq DESC${late.fence}
      ) AS m${late.where}
      LIMIT ?
    ),
    -- The oldest scored match: the newest \`window\` of the hits are scored, the rest follow.
    cut AS MATERIALIZED (
      SELECT min(seq) AS seq FROM (SELECT seq FROM hit ORDER BY seq DESC LIMIT ?) AS scored
    )
    SELECT m.id, m.session_id, m.role, m.content, ${isoSql("m.created_at")} AS created_at
    FROM hit CROSS JOIN cut JOIN assistant_messages AS m ON m.ctid = hit.row_id
    ORDER BY hit.seq >= cut.seq DESC,
      CASE WHEN hit.seq >= cut.seq THEN ts_rank(m.content_tsv, ${tsquery}) END DESC NULLS LAST,
      m.seq DESC
    LIMIT ?`,
    params: [
      ...queryParams(terms, config),
      ...scope.params,
      ...match.params,
      ...late.params,
      Math.max(window, rankTail(window, count)),
      window,
      ...queryParams(terms, config),
      count,
    ],
  };
}

/**
 * Ranked any-term search (docs/behavior/search.md): two windows of candidates, each the newest
 * matches up to the rank window, one of messages holding every term (`every`), one of messages
 * holding any, and the rare terms' matches; then every-term matches first, the rest by a
 * BM25-like score: for each term it holds, `ts_rank` of the term times the term's weight, its
 * inverse document frequency among the terms' counts (`weights`, from the counts `rareTerms`
 * took). The weights do not depend on the candidates, so when the every-term window alone fills
 * the limit the other arms cannot change the result, and they are not run (a one-time filter on
 * the every-term count): the common case of a query whose words often occur together.
 */
function rankedStatement(
  terms: readonly RankedTerm[],
  scope: MessageSearchScope,
  config: string,
  count: number,
  window: number,
  rareArm: RareTermArm,
  weights: readonly number[],
): Statement {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return "?";
  };
  const formQuery = (form: SearchTerm) => {
    const { fn, text } = termTsquery(form);
    return `${fn}(${bind(config)}::regconfig, ${bind(text)})`;
  };
  const termQuery = (term: RankedTerm) =>
    `(${term.forms.map(formQuery).join(" || ")})`;
  /**
   * A term holds when one of its forms does: its tsquery (`query`) matches and, for a CJK form,
   * its runs are adjacent in the text. Without CJK forms the tsquery alone decides.
   */
  const cjk = terms.some((term) =>
    term.forms.some((form) => form.substrings.length > 0),
  );
  const termHolds = (term: RankedTerm, query: () => string) =>
    term.forms.every((form) => form.substrings.length === 0)
      ? `m.content_tsv @@ ${query()}`
      : `(${term.forms
          .map((form) =>
            [
              `m.content_tsv @@ ${formQuery(form)}`,
              ...form.substrings.map(
                (run) => `strpos(m.text_content, ${bind(run)}) > 0`,
              ),
            ].join(" AND "),
          )
          .map((condition) => `(${condition})`)
          .join(" OR ")})`;
  const tail = rankTail(window, count);
  const scopeSql = () => {
    params.push(...scope.params);
    return `(${scope.sql})`;
  };
  const late = lateCheck(scope);
  /** One arm: its matches in `order`, the late check on them in that order, then its limit. */
  const arm = (
    where: string,
    order: string,
    limit: number,
    every: boolean,
    scored = true,
  ) => {
    const inner = `SELECT m.seq, m.ctid AS row_id, m.session_id
        FROM assistant_messages AS m
        WHERE ${where}${order}`;
    if (!scope.late)
      return `SELECT m.seq, m.ctid AS row_id, ${every} AS every, ${scored} AS scored
        FROM assistant_messages AS m
        WHERE ${where}${order} LIMIT ${bind(limit)}`;
    const sql = `SELECT m.seq, m.row_id, ${every} AS every, ${scored} AS scored FROM (${inner}${late.fence}) AS m${late.where}`;
    params.push(...late.params);
    return `${sql} LIMIT ${bind(limit)}`;
  };
  // The index condition's tsquery is inline, so the planner sees how common its words are: a
  // GIN bitmap for rare words, a backward walk of `seq` for common ones. CJK adjacency is
  // checked after it.
  const newest = "\n      ORDER BY m.seq DESC";
  // Planned as a one-time filter: false, and the arm's scan never starts.
  const unfilled = () =>
    ` AND (SELECT count(*) FROM every_hit) < ${bind(count)}`;
  const everySql = arm(
    `m.content_tsv @@ (${terms.map(termQuery).join(" && ")}) AND ${scopeSql()}${
      cjk
        ? ` AND ${terms.map((term) => termHolds(term, () => termQuery(term))).join(" AND ")}`
        : ""
    }`,
    newest,
    window,
    true,
  );
  /** Messages holding any of `list` (the index condition, then CJK adjacency), while unfilled. */
  const anyOf = (list: readonly RankedTerm[]) =>
    `m.content_tsv @@ (${list.map(termQuery).join(" || ")}) AND ${scopeSql()}${
      cjk
        ? ` AND (${list.map((term) => termHolds(term, () => termQuery(term))).join(" OR ")})`
        : ""
    }${unfilled()}`;
  const someSql = arm(anyOf(terms), newest, rareArm.anyWindow, false);
  // Every match of the rare terms (text/rare-terms.ts), however old; `LIMIT 0` without them.
  const rare = (rareArm.rare ?? [0]).map((at) => terms[at]!);
  const rareSql = arm(anyOf(rare), "", rareArm.rareLimit, false);
  // A limit past the window: the newest matches past the scored ones follow them unscored
  // (`rankTail`), so the first results never depend on the limit.
  const tailSql =
    tail > 0 ? arm(anyOf(terms), newest, tail, false, false) : null;
  // Scoring reads each term's tsquery once (`queries`), not once per candidate row.
  const querySql = terms
    .map((term, at) => `${termQuery(term)} AS query_${at}`)
    .join(", ");
  // A term's share of the score: `ts_rank` only where the term holds (a candidate of an any-term
  // search holds one or two of its terms; `ts_rank` is most of the scoring's cost).
  const score = terms
    .map(
      (term, at) =>
        `CASE WHEN ${termHolds(term, () => `queries.query_${at}`)}
          THEN ts_rank(m.content_tsv, queries.query_${at}) * ${bind(weights[at] ?? 0)}::float8
          ELSE 0 END`,
    )
    .join(" + ");
  return {
    sql: `WITH every_hit AS MATERIALIZED (${everySql}),
    some_hit AS MATERIALIZED (${someSql}),
    rare_hit AS MATERIALIZED (${rareSql}),${
      tailSql === null
        ? ""
        : `
    tail_hit AS MATERIALIZED (${tailSql}),`
    }
    hit AS (
      SELECT DISTINCT ON (seq) seq, row_id, every, scored
      FROM (SELECT * FROM every_hit UNION ALL SELECT * FROM some_hit
        UNION ALL SELECT * FROM rare_hit${tailSql === null ? "" : " UNION ALL SELECT * FROM tail_hit"}) AS candidate
      ORDER BY seq, every DESC, scored DESC
    ),
    queries AS MATERIALIZED (SELECT ${querySql}),
    best AS MATERIALIZED (
      SELECT hit.row_id, hit.seq, hit.every,
        CASE WHEN hit.scored THEN ${score} END AS score
      FROM hit JOIN assistant_messages AS m ON m.ctid = hit.row_id CROSS JOIN queries
      ORDER BY hit.every DESC, score DESC NULLS LAST, hit.seq DESC
      LIMIT ${bind(count)}
    )
    -- Only the results' rows are read whole: the candidates are scored on their index text.
    SELECT m.id, m.session_id, m.role, m.content, ${isoSql("m.created_at")} AS created_at
    FROM best JOIN assistant_messages AS m ON m.ctid = best.row_id
    ORDER BY best.every DESC, best.score DESC NULLS LAST, best.seq DESC`,
    params,
  };
}

/**
 * The terms ranked, the rare-term arm (text/rare-terms.ts) and each term's weight: each term's
 * matches over the whole table, counted up to `rareCountCap(window) + 1`, so a common term costs
 * no more than that many rows (one statement), or estimated by the statistics when they call it
 * common; the rarest `MAX_RANKED_TERMS` are ranked (`rarestIndexes`), and the arm is chosen
 * among them. A weight is the BM25 inverse document frequency of the term's count among the
 * terms' counts together.
 */
async function rareTerms(
  db: PostgresQueryable,
  terms: readonly RankedTerm[],
  config: string,
  window: number,
): Promise<{ terms: RankedTerm[]; arm: RareTermArm; weights: number[] }> {
  const params: unknown[] = [];
  const bind = (value: unknown) => {
    params.push(value);
    return "?";
  };
  const formQuery = (form: SearchTerm) => {
    const { fn, text } = termTsquery(form);
    return `${fn}(${bind(config)}::regconfig, ${bind(text)})`;
  };
  const cap = rareCountCap(window);
  // A term whose lexeme the statistics already call common is not counted (postgres-term-stats.ts).
  const common = bind(await commonLexemesParam(db, cap));
  const commonForm = (form: SearchTerm) => {
    bind(config);
    bind(form.phrase);
    return commonFormSql("common.lexemes");
  };
  const countSql = terms.map(
    (term, at) =>
      `COALESCE(greatest(${term.forms.map(commonForm).join(", ")}),
      (SELECT count(*) FROM (SELECT 1 FROM assistant_messages AS m WHERE m.content_tsv @@ (${term.forms
        .map(formQuery)
        .join(" || ")}) LIMIT ${bind(cap + 1)}) AS c))::float8 AS n_${at}`,
  );
  const [row] = await db.query<Record<string, number>>(
    `WITH common AS MATERIALIZED (SELECT ${common}::text::jsonb AS lexemes)
    SELECT ${countSql.join(", ")} FROM common`,
    params,
  );
  const counts = terms.map((_, at) =>
    Number(row?.[`n_${at}`] ?? Number.POSITIVE_INFINITY),
  );
  const kept = rarestIndexes(terms.length, counts);
  const keptCounts = kept.map((at) => counts[at]!);
  // The documents of the weights: the terms' matches together, not the table's rows. Common
  // terms then weigh next to nothing beside a rare one, which recall on LongMemEval prefers
  // (recall@10 40.1% against 38.5% with the table's estimated rows), and no statistic that
  // autovacuum refreshes enters a score.
  const rows = keptCounts.reduce(
    (sum, n) => sum + (Number.isFinite(n) ? n : 0),
    0,
  );
  return {
    terms: kept.map((at) => terms[at]!),
    arm: rareTermArm("any", keptCounts, window),
    weights: keptCounts.map((n) => Math.log(1 + (rows - n + 0.5) / (n + 0.5))),
  };
}

interface HitRow {
  id: string;
  session_id: string;
  role: string;
  content: string;
  created_at: string;
}
