// REALTALK, the recall-quality benchmark's second data set (ARBOR_RECALL_DATA=realtalk, or a
// folder holding its files): REALTALK (Lee et al., 2025,
// "REALTALK: A 21-Day Real-World Dataset for Long-Term Conversation", arXiv:2502.13270), ten real
// messaging-app conversations between people over 21 days, each message with its own time, and
// 728 memory questions whose evidence is labelled by message id.
//
// The repository that publishes it (github.com/danny911kr/REALTALK) states no licence, so the
// files are not committed here: ARBOR_RECALL_DATA=realtalk downloads them, pinned to one commit
// and checked against their SHA-256, into bench/.data/realtalk/ (git-ignored);
// ARBOR_RECALL_DATA=<folder> reads them from a folder that already holds them (the repository's
// data/ folder) instead. The default data set is LongMemEval (longmemeval.mjs).
//
// Only the ten REALTALK files are read. That repository also carries a split copy of another
// benchmark under data/locomo/; this benchmark never downloads or reads it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const COMMIT = "b903e06a9770bf4e5fe9018c3e132889666d3b4a";
const SOURCE = `https://raw.githubusercontent.com/danny911kr/REALTALK/${COMMIT}/data`;

/** The ten conversation files and their SHA-256 at `COMMIT`. */
export const FILES = new Map([
  [
    "Chat_1_Emi_Elise.json",
    "4e947998a751a1ba2c3710fc873b90fbcbc234fda7a5e4e75db2b762e0f25a36",
  ],
  [
    "Chat_2_Kevin_Elise.json",
    "4ac6e319c206731aa9a025c93325eb1edb43686cf39473f058c87ae7deb2d62a",
  ],
  [
    "Chat_3_Kevin_Paola.json",
    "10c9208016538cbe7a28aafa6cfd72587b072677964c36ec242159fdf58961f2",
  ],
  [
    "Chat_4_Emi_Paola.json",
    "80aa012ed6a918f5b317bd942b4d4811a158d27a6e07b7a5c6182994107a9367",
  ],
  [
    "Chat_5_Nicolas_Nebraas.json",
    "32dd7c45786b1a26861dc1574a1bb698a855196fd2ae3fc0c091f3c9ab2d6d06",
  ],
  [
    "Chat_6_Vanessa_Nicolas.json",
    "9d5ee072ab5a0667ef71d5644d7cd3a4c6777a1e6e2252bf306f310d982e40ac",
  ],
  [
    "Chat_7_Nebraas_Vanessa.json",
    "b5716bb093217980e747dec0d98996829b569febc09587a025efc6b79806e9ce",
  ],
  [
    "Chat_8_Akib_Muhhamed.json",
    "814f64ad7e8a46f0398f550fe84184e2ba495a292290b9ff96ffc95448280800",
  ],
  [
    "Chat_9_Fahim_Akib.json",
    "05b9b4331bf0e25a2a64dc89c404622c83a61ab5e7c935fb7d844449caf6dd39",
  ],
  [
    "Chat_10_Fahim_Muhhamed.json",
    "26135a9e3482f40bea4c71de570a2d994a361848111067e60587be1dd82a0127",
  ],
]);

/** The question categories of REALTALK (the same numbering as its evaluation code). */
export const CATEGORIES = new Map([
  [1, "multi-hop"],
  [2, "temporal"],
  [3, "inference"],
]);

export const DATASET = {
  name: "REALTALK",
  source: `github.com/danny911kr/REALTALK@${COMMIT.slice(0, 7)}`,
  licence:
    "none stated by the publisher (not committed; downloaded and checked)",
};

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/**
 * REALTALK in the benchmark's shape (see longmemeval.mjs): each question searched in its own
 * conversation. `given` is a folder holding the files, or undefined to download them.
 */
export async function loadRealtalk(benchDir, given) {
  const folder = await dataFolder(benchDir, given);
  const { conversations, skipped, droppedIds } = loadConversations(folder);
  return {
    dataset: DATASET,
    conversations: conversations.map(({ name, turns }) => {
      const first = turns[0].speaker;
      return {
        name,
        turns: turns.map((turn) => ({
          ...turn,
          role: turn.speaker === first ? "user" : "assistant",
        })),
      };
    }),
    questions: conversations.flatMap(({ name, questions }) =>
      questions.map((question) => ({ ...question, conversation: name })),
    ),
    skipped,
    droppedIds,
    // The files are pinned by SHA-256, so these counts are fixed: a change to how labels are
    // read that moves them is a change to the benchmark.
    expected: { questions: 705, skipped: 23, droppedIds: 136 },
    scope: "the question's own conversation",
  };
}

/**
 * The folder holding the ten files, checked: `given` when set, else bench/.data/realtalk after
 * downloading whatever is missing there.
 */
export async function dataFolder(benchDir, given) {
  const folder = given ?? join(benchDir, ".data", "realtalk");
  mkdirSync(folder, { recursive: true });
  for (const [file, expected] of FILES) {
    const path = join(folder, file);
    if (!existsSync(path)) {
      if (given) throw new Error(`ARBOR_RECALL_DATA=${given} has no ${file}`);
      console.log(`recall-quality: downloading ${file}`);
      const response = await fetch(`${SOURCE}/${file}`, {
        signal: AbortSignal.timeout(60_000),
      }).catch((error) => {
        throw new Error(
          `downloading ${SOURCE}/${file} failed (${error.cause?.code ?? error.message}); set ARBOR_RECALL_DATA to a folder holding the REALTALK data/ files`,
        );
      });
      if (!response.ok)
        throw new Error(
          `downloading ${SOURCE}/${file}: HTTP ${response.status} (set ARBOR_RECALL_DATA to a folder holding the REALTALK data/ files)`,
        );
      const bytes = Buffer.from(await response.arrayBuffer());
      if (sha256(bytes) !== expected)
        throw new Error(
          `${file}: downloaded bytes do not match SHA-256 ${expected}`,
        );
      writeFileSync(path, bytes);
    }
    const actual = sha256(readFileSync(path));
    if (actual !== expected)
      throw new Error(`${path}: SHA-256 ${actual}, expected ${expected}`);
  }
  return folder;
}

/** "29.12.2023, 22:42:04" as an ISO time. The data names no time zone; read as UTC. */
export function parseTime(value) {
  const match = /^(\d{2})\.(\d{2})\.(\d{4}), (\d{2}):(\d{2}):(\d{2})$/.exec(
    value,
  );
  if (!match) throw new Error(`unreadable REALTALK time "${value}"`);
  const [, day, month, year, hour, minute, second] = match.map(Number);
  return new Date(
    Date.UTC(year, month - 1, day, hour, minute, second),
  ).toISOString();
}

/**
 * The message ids an evidence label names. Most labels are one id ("D1:6"); some hold several
 * ("D5:12;D5:16", "D11:17; D16:1", "D13:45:D20:19"), a range within a session ("D12:3-D12:5")
 * or a trailing stop ("D5:3.").
 */
export function evidenceIds(label) {
  const ids = [];
  for (const part of label.match(/D\d+:\d+(?:\s*-\s*D\d+:\d+)?/g) ?? []) {
    const [from, to] = part.split("-").map((id) => id.trim());
    if (!to) {
      ids.push(from);
      continue;
    }
    const [fromSession, fromTurn] = from.slice(1).split(":").map(Number);
    const [toSession, toTurn] = to.slice(1).split(":").map(Number);
    if (fromSession !== toSession || toTurn < fromTurn) {
      ids.push(from, to);
      continue;
    }
    for (let turn = fromTurn; turn <= toTurn; turn++)
      ids.push(`D${fromSession}:${turn}`);
  }
  return ids;
}

/** The text of a turn as stored: `Speaker: text`, with a shared photo's caption when it has one. */
export function turnText(turn) {
  const caption = turn.blip_caption ? ` [photo: ${turn.blip_caption}]` : "";
  return `${turn.speaker}: ${turn.clean_text ?? ""}${caption}`.trim();
}

/**
 * The conversations: `{ name, turns: [{ id, speaker, text, createdAt }], questions: [{ question,
 * category, evidence: Set }] }`. Evidence ids that name no turn of the conversation are dropped; a
 * question left with no evidence is counted in `skipped` and not asked.
 */
export function loadConversations(folder) {
  const conversations = [];
  let skipped = 0;
  let droppedIds = 0;
  for (const file of FILES.keys()) {
    const data = JSON.parse(readFileSync(join(folder, file), "utf8"));
    const sessions = Object.keys(data)
      .filter((key) => /^session_\d+$/.test(key))
      .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
    const turns = [];
    for (const key of sessions)
      for (const turn of data[key])
        turns.push({
          id: turn.dia_id,
          speaker: turn.speaker,
          text: turnText(turn),
          createdAt: parseTime(turn.date_time),
        });
    const known = new Set(turns.map((turn) => turn.id));
    const questions = [];
    for (const qa of data.qa) {
      const named = (qa.evidence ?? []).flatMap(evidenceIds);
      const evidence = new Set(named.filter((id) => known.has(id)));
      droppedIds += named.length - named.filter((id) => known.has(id)).length;
      if (evidence.size === 0) {
        skipped++;
        continue;
      }
      questions.push({
        question: qa.question,
        category: CATEGORIES.get(qa.category) ?? `category ${qa.category}`,
        evidence,
      });
    }
    conversations.push({ name: file.replace(/\.json$/, ""), turns, questions });
  }
  return { conversations, skipped, droppedIds };
}
