// Prints the rows of one `npm run bench` (.bench/results.json, or the file given) as the
// Markdown table at the end of docs/benchmarks.md, so the page quotes one run verbatim.
//
//   node bench/report.mjs [results.json]
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? ".bench/results.json";
const { at, node, rows } = JSON.parse(readFileSync(file, "utf8"));
const format = (value) =>
  value >= 100 ? Math.round(value).toLocaleString("en") : value.toFixed(2);
const cell = (text) => String(text).replaceAll("|", "\\|");

console.log(`Run of ${at}, Node ${node}, ${rows.length} rows.\n`);
console.log("| Workload | Backend | Result | Note |");
console.log("| --- | --- | --- | --- |");
for (const row of rows) {
  console.log(
    `| ${cell(row.workload)} | ${cell(row.backend)} | ${format(row.value)} ${cell(row.unit)} | ${cell(row.note)} |`,
  );
}
