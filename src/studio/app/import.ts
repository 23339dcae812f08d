/**
 * Import by dropping files anywhere on the page (or choosing them): POST /v1/import with each
 * file as the body, one after the other, through XHR so each upload reports progress. Several
 * files at once are all imported (a Claude Code session with its subagent files links them,
 * whichever comes first), each with its own line in the panel.
 */
import { ApiError } from "./api.js";
import { onEvent } from "./events.js";
import type { ImportReport } from "./api-types.js";
import { askForKey, authHeaders } from "./auth.js";
import { h, replace } from "./dom.js";
import { navigate, sessionHref } from "./router.js";

/** Wires drag-and-drop on the document; returns the "choose a file" action. */
export function setUpImport(
  panel: HTMLElement,
  onImported: () => void,
): () => void {
  const picker = h("input", {
    type: "file",
    multiple: true,
    hidden: true,
    "aria-hidden": "true",
    tabindex: -1,
  });
  picker.addEventListener("change", () => {
    const files = [...(picker.files ?? [])];
    picker.value = "";
    if (files.length > 0) void importFiles(files, panel, onImported);
  });
  document.body.append(picker);
  let depth = 0;
  document.addEventListener("dragenter", (event) => {
    if (!hasFiles(event)) return;
    depth++;
    document.body.classList.add("dropping");
  });
  document.addEventListener("dragleave", () => {
    if (--depth <= 0) document.body.classList.remove("dropping");
  });
  document.addEventListener("dragover", (event) => {
    if (hasFiles(event)) event.preventDefault();
  });
  document.addEventListener("drop", (event) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    depth = 0;
    document.body.classList.remove("dropping");
    const files = [...(event.dataTransfer?.files ?? [])];
    if (files.length > 0) void importFiles(files, panel, onImported);
  });
  return () => picker.click();
}

// --- Internal helpers ---

function hasFiles(event: DragEvent): boolean {
  return event.dataTransfer?.types.includes("Files") ?? false;
}

/**
 * Imports the files one after the other (in order, so the server never races two imports of one
 * conversation), each with its own line. Opens the new session when one file made one; the panel
 * closes itself only when every file went through cleanly.
 */
async function importFiles(
  files: readonly File[],
  panel: HTMLElement,
  onImported: () => void,
): Promise<void> {
  const close = h(
    "button",
    {
      type: "button",
      "aria-label": "Close",
      onclick: () => (panel.hidden = true),
    },
    "×",
  );
  const list = h("div", { class: "import-files" });
  replace(
    panel,
    h(
      "div",
      { class: "import-row" },
      h(
        "strong",
        {},
        files.length === 1 ? "Import" : `Import of ${files.length} files`,
      ),
      close,
    ),
    list,
  );
  panel.hidden = false;
  panel.className = "import-panel";
  let quiet = true;
  let opened: string | null = null;
  for (const file of files) {
    const line = h("div", { class: "import-file" });
    list.append(line);
    const result = await importFile(file, line, onImported);
    if (result.failed) panel.classList.add("failed");
    quiet &&= !result.needsAttention;
    opened = files.length === 1 ? result.opens : null;
  }
  if (opened !== null) navigate(sessionHref(opened));
  // A clean success needs no attention for long; one with skips, and a failure, stay until closed.
  if (quiet)
    setTimeout(() => {
      if (panel.contains(list)) panel.hidden = true;
    }, 8000);
}

/** One file's upload and import, shown in `line`; what the panel does next. */
async function importFile(
  file: File,
  line: HTMLElement,
  onImported: () => void,
): Promise<{ failed: boolean; needsAttention: boolean; opens: string | null }> {
  const bar = h("progress", {
    max: 100,
    value: 0,
    "aria-label": `Upload progress of ${file.name}`,
  });
  const status = h(
    "span",
    { class: "import-status" },
    `Uploading ${file.name}…`,
  );
  replace(line, status, bar);
  try {
    const report = await upload(file, (fraction) => {
      bar.value = Math.round(fraction * 100);
      if (fraction >= 1) {
        // The server reads the file now: no measure of that, so the bar turns indeterminate.
        bar.removeAttribute("value");
        bar.setAttribute("aria-label", "Importing");
        status.textContent = `Uploaded ${file.name}; importing…`;
      }
    });
    bar.remove();
    const { sessions } = report;
    replace(
      status,
      `Imported ${sessions.length} session${sessions.length === 1 ? "" : "s"} from ${file.name}: `,
      sessions
        .slice(0, 5)
        .flatMap((session, index) => [
          index > 0 ? ", " : "",
          h("a", { href: sessionHref(session.id) }, session.name || session.id),
        ]),
    );
    const details = reportDetails(report);
    line.append(details.element);
    onImported();
    return {
      failed: false,
      needsAttention: details.needsAttention,
      opens:
        sessions.length === 1 && report.created.length === 1
          ? sessions[0]!.id
          : null,
    };
  } catch (error) {
    line.classList.add("failed");
    bar.remove();
    status.textContent = `Import of ${file.name} failed: ${error instanceof Error ? error.message : String(error)}`;
    return { failed: true, needsAttention: true, opens: null };
  }
}

/**
 * What the import did, counted (created, updated, skipped) and listed: conversations imported
 * before or erased (with the session they match), content the file holds that the import left
 * out and why, entries repaired.
 */
function reportDetails(report: ImportReport): {
  element: HTMLElement;
  needsAttention: boolean;
} {
  const skipped = report.skippedConversations.length + report.skipped.length;
  const counts =
    `${report.created.length} created · ${report.updated.length} updated · ${report.skippedConversations.length} skipped` +
    (report.skipped.length > 0
      ? ` · ${report.skipped.length} item${report.skipped.length === 1 ? "" : "s"} left out`
      : "") +
    (report.warnings.length > 0 ? ` · ${report.warnings.length} repaired` : "");
  const items: HTMLElement[] = [
    ...report.updated.map((entry) =>
      h(
        "li",
        {},
        "Updated ",
        h(
          "a",
          { href: sessionHref(entry.sessionId) },
          nameOf(report, entry.sessionId),
        ),
        `: ${entry.messagesAdded} message${entry.messagesAdded === 1 ? "" : "s"} added`,
      ),
    ),
    ...report.skippedConversations.map((entry) =>
      h(
        "li",
        {},
        `Skipped “${entry.title}”: `,
        entry.reason === "exists"
          ? [
              "imported before",
              entry.sessionId
                ? [
                    " as ",
                    h(
                      "a",
                      { href: sessionHref(entry.sessionId) },
                      "this session",
                    ),
                  ]
                : null,
            ]
          : "it was erased, and erased conversations are not imported again",
      ),
    ),
    ...report.skipped.map((entry) =>
      h(
        "li",
        {},
        `Left out ${entry.what} (${entry.where}${report.sessions.length > 1 ? `, conversation ${entry.conversation + 1}` : ""}): ${entry.reason}`,
      ),
    ),
    ...report.warnings.map((entry) =>
      h("li", {}, `Repaired ${entry.where}: ${entry.problem}`),
    ),
  ];
  const element =
    items.length === 0
      ? h("p", { class: "import-counts" }, counts)
      : h(
          "details",
          { class: "import-report", open: skipped > 0 },
          h("summary", { class: "import-counts" }, counts),
          h("ul", {}, items),
        );
  return { element, needsAttention: skipped > 0 || report.warnings.length > 0 };
}

function nameOf(report: ImportReport, sessionId: string): string {
  return (
    report.sessions.find((session) => session.id === sessionId)?.name ||
    sessionId
  );
}

function upload(
  file: File,
  progress: (fraction: number) => void,
): Promise<ImportReport> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(
      "POST",
      `/v1/import?fileName=${encodeURIComponent(file.name)}`,
    );
    for (const [name, value] of Object.entries(authHeaders()))
      request.setRequestHeader(name, value);
    request.setRequestHeader(
      "content-type",
      file.type || "application/octet-stream",
    );
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) progress(event.loaded / event.total);
    });
    request.addEventListener(
      "load",
      onEvent(async () => {
        if (request.status === 401 && (await askForKey())) {
          upload(file, progress).then(resolve, reject);
          return;
        }
        try {
          const body = JSON.parse(
            request.responseText,
          ) as Partial<ImportReport> & {
            error?: { code: string; message: string };
          };
          if (request.status >= 200 && request.status < 300)
            resolve({
              sessions: body.sessions ?? [],
              created: body.created ?? [],
              updated: body.updated ?? [],
              skipped: body.skipped ?? [],
              skippedConversations: body.skippedConversations ?? [],
              warnings: body.warnings ?? [],
            });
          else
            reject(
              new ApiError(
                request.status,
                body.error?.code ?? `HTTP_${request.status}`,
                body.error?.message ?? request.statusText,
              ),
            );
        } catch {
          reject(
            new ApiError(
              request.status,
              `HTTP_${request.status}`,
              request.responseText.slice(0, 200),
            ),
          );
        }
      }),
    );
    request.addEventListener("error", () =>
      reject(new Error("the upload failed (network error)")),
    );
    request.send(file);
  });
}
